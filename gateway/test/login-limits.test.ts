/**
 * @lane timing-critical measures identity's memory through 50 concurrent password checks
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createReplica, queryDatabase, type PlatformProcess, type PlatformUnderTest } from '@billing/testing';
import { parseAllDocuments } from 'yaml';
import {
  gatewayApi,
  registerMerchant,
  startGatewayPlatform,
  startGatewayReplica,
  uniqueEmail,
  type Api,
  type ApiResponse,
  type RegisteredMerchant,
} from './support/api';

/** identity's memory limit in the Kubernetes base, in bytes. */
function identityMemoryLimit(): number {
  const path = resolve(__dirname, '../../k8s/base/identity.yaml');
  const deployment = parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJSON() as { kind?: string; spec?: { template: { spec: { containers: unknown[] } } } })
    .find((d) => d.kind === 'Deployment');
  const containers = deployment?.spec?.template.spec.containers as { resources: { limits: { memory: string } } }[];
  const match = /^(\d+)Mi$/.exec(containers[0].resources.limits.memory);
  if (!match) throw new Error(`unexpected memory limit in ${path}`);
  return Number(match[1]) * 1024 * 1024;
}

/** A process's peak and current resident memory (Linux), in bytes. */
function residentMemory(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { peak: kib('VmHWM'), now: kib('VmRSS') };
}

function expectTooMany(res: ApiResponse): void {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(typeof res.body.detail).toBe('string');
}

const login = (api: Api, email: string, password: string) =>
  api('POST', '/api/v1/auth/login', { body: { email, password } });

// A password check at the production cost takes about a second of scrypt on a loaded machine.
jest.setTimeout(120_000);

describe('login and registration limits, bounded password hashing', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let merchant: RegisteredMerchant;

  /** Another gateway on the same identity with the real value of one limit, counted apart from the others. */
  async function strictGateway(limit: Record<string, string>, env: Record<string, string> = {}): Promise<Api> {
    const replica = await startGatewayReplica(platform, {
      ...env,
      ...limit,
      REDIS_KEY_PREFIX: `${platform.runId}-${Object.keys(limit)[0]}`,
    });
    replicas.push(replica.process);
    return gatewayApi(replica.url);
  }
  const replicas: PlatformProcess[] = [];

  /**
   * Identity at the production cost of password hashing (N=2^17, 128 MiB a hash), behind a gateway
   * of its own: its time and memory are what the memory test bounds. The limits' tests count
   * attempts, whatever a hash costs, on the platform's identity at the test cost (2^10).
   */
  function productionCostIdentity(): Promise<{ api: Api; process: PlatformProcess; url: string }> {
    slowIdentity ??= (async () => {
      const identity = await createReplica(platform, 'identity', { PASSWORD_SCRYPT_COST: '17' });
      replicas.push(identity.process);
      await identity.process.start();
      const url = `127.0.0.1:${identity.port}`;
      const gateway = await startGatewayReplica(platform, { IDENTITY_GRPC_URL: url });
      replicas.push(gateway.process);
      return { api: gatewayApi(gateway.url), process: identity.process, url };
    })();
    return slowIdentity;
  }
  let slowIdentity: ReturnType<typeof productionCostIdentity> | undefined;

  beforeAll(async () => {
    // The gateway's own limits relaxed: all 50 logins below reach identity (with the real
    // per-email budget the gateway would turn 40 of them away itself). Identity's are the real ones.
    platform = await startGatewayPlatform();
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'login-limits');
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await platform?.stop();
  });

  it('keeps identity under its Kubernetes memory limit through 50 concurrent logins, refusing the excess with 429', async () => {
    const identity = await productionCostIdentity();
    const pid = identity.process.pid;
    if (!pid) throw new Error('identity has no pid');
    // Registered there: its hash carries the production cost, which every login of it pays.
    const hashed = await registerMerchant(identity.api, 'login-memory');
    const [stored] = await queryDatabase<{ password_hash: string }>(
      platform.database('identity'),
      'SELECT password_hash FROM merchants WHERE email = $1',
      [hashed.email],
    );
    expect(stored.password_hash.startsWith(`scrypt$${2 ** 17}$8$1$`)).toBe(true);
    const limit = identityMemoryLimit();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => login(identity.api, hashed.email, hashed.password)),
    );
    const memory = residentMemory(pid);
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(served.length + refused.length).toBe(50);
    // Two hash at once and a few wait; the rest are told to come back.
    expect(served.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThan(0);
    refused.forEach(expectTooMany);
    expect(memory.peak).toBeLessThan(limit);
    process.stdout.write(
      `identity RSS peak ${Math.round(memory.peak / 2 ** 20)} MiB (limit ${limit / 2 ** 20} MiB); ` +
        `${served.length} served, ${refused.length} refused\n`,
    );

    // The next login, after the burst, is served as usual.
    const next = await login(identity.api, hashed.email, hashed.password);
    expect(next.status).toBe(200);
    expect(next.body.access_token).toEqual(expect.any(String));
  });

  it('refuses an 11th login attempt within 15 minutes after 10 failures, even with the right password', async () => {
    const victim = await registerMerchant(api, 'brute-force');
    const strict = await strictGateway({ LOGIN_FAILURES_PER_15_MIN: '10' });
    // Concurrent attempts can't overshoot the budget: of 5 and then 7 at once, exactly 10 are
    // tried and 2 refused. (At most 6 at once: identity itself hashes 2 and queues 4.)
    const wrong = (count: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => login(strict, victim.email, `wrong-password-${i}`)));
    const attempts = [...(await wrong(5)), ...(await wrong(7))];
    expect(attempts.filter((a) => a.status === 401)).toHaveLength(10);
    attempts.filter((a) => a.status !== 401).forEach(expectTooMany);

    const right = await login(strict, victim.email.toUpperCase(), victim.password);
    expectTooMany(right);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    // Another email is not affected, and logins that did not fail give their point back: of 12
    // at once, 10 pass the gateway (identity serves some, refuses the rest with 429), 2 are refused
    // there; none of them counts, so the next one is served. On identity at the production cost,
    // so that all 12 are in flight together (at the test cost the first ones finished, and gave
    // their points back, before the last arrived).
    const slow = await productionCostIdentity();
    const other = await registerMerchant(slow.api, 'login-limits-other');
    const strictOnSlow = await strictGateway({ LOGIN_FAILURES_PER_15_MIN: '10' }, { IDENTITY_GRPC_URL: slow.url });
    const others = await Promise.all(
      Array.from({ length: 12 }, () => login(strictOnSlow, other.email, other.password)),
    );
    expect(others.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(2);
    expect(others.filter((a) => a.status !== 200).length).toBeGreaterThanOrEqual(2);
    others.filter((a) => a.status !== 200).forEach(expectTooMany);
    expect((await login(strictOnSlow, other.email, other.password)).status).toBe(200);
  });

  it('answers /auth/* beyond 60 requests a minute from one address with 429', async () => {
    const strictApi = await strictGateway({ AUTH_REQUESTS_PER_MINUTE_PER_ADDRESS: '60' });
    // Cheap requests (no password to hash) count like any other; a registration is one of them.
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 59; i += 1) answers.push(await strictApi('GET', '/api/v1/auth/me'));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 401));
    const registration = await strictApi('POST', '/api/v1/auth/register', {
      body: { email: uniqueEmail('sixtieth'), business_name: 'Sixty Ltd', password: 'long-enough-password' },
    });
    expect(registration.status).toBe(201);
    const refused = await strictApi('POST', '/api/v1/auth/register', {
      body: { email: uniqueEmail('sixty-first'), business_name: 'Sixty One Ltd', password: 'long-enough-password' },
    });
    expectTooMany(refused);
    expectTooMany(await login(strictApi, merchant.email, merchant.password));
    // Other routes are not counted against the address.
    expect((await strictApi('GET', '/api/v1/projects/current', { apiKey: 'svc_test_unknown' })).status).toBe(401);
  });
});
