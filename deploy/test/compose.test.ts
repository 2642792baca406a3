/**
 * deploy/compose.yaml as docs/deployment.md runs it: with the deploy/.env and deploy/tls/ that
 * deploy/compose-secrets.sh writes, every process of the platform starts on the environment
 * compose gives it (NODE_ENV=production, so no development default of a secret is accepted),
 * and every file it names is in a folder compose mounts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { configModuleOf, refusals, REPOSITORY, runConfigLoaders, type ConfigCheck } from './support/manifests';

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}/g,
    (_match, variable: string, operator?: string, operand = '') => {
      const set = env[variable] !== undefined && (env[variable] !== '' || !operator?.startsWith(':'));
      if (set) return env[variable];
      if (operator?.endsWith('?')) throw new Error(`compose refuses to start: ${variable}: ${operand}`);
      return operator ? operand : '';
    },
  );
}

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  volumes?: string[];
}

/**
 * What compose gives each container of the platform image, interpolated with `env`; a value
 * naming a file in a bind mount becomes that file in `secretsFolder` (what compose-secrets.sh
 * wrote), and a file that is not there is a problem.
 */
function platformChecks(env: Record<string, string>, secretsFolder: string, problems: string[] = []): ConfigCheck[] {
  const compose = parse(readFileSync(path.join(REPOSITORY, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  return Object.entries(compose.services)
    .filter(([, service]) => service.image === 'billing-platform:local')
    .map(([name, service]) => {
      const mounts = (service.volumes ?? []).map((volume) => volume.split(':'));
      const inContainer = (value: string): string => {
        const mount = mounts.find(([, target]) => value.startsWith(`${target}/`));
        if (!mount) return value;
        const file = path.join(secretsFolder, mount[0], value.slice(mount[1].length));
        if (!existsSync(file)) problems.push(`${name}: ${value} (${mount[0]}) is not there`);
        return file;
      };
      return {
        label: name,
        configModule: configModuleOf(service.command![0]),
        env: Object.fromEntries(
          Object.entries(service.environment ?? {}).map(([key, value]) => [
            key,
            inContainer(interpolate(String(value), env)),
          ]),
        ),
      };
    });
}

describe('compose', () => {
  let scratch: string;
  let envFile: Record<string, string>;

  beforeAll(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'compose-secrets-'));
    execFileSync(path.join(REPOSITORY, 'deploy/compose-secrets.sh'), [scratch], { stdio: 'pipe' });
    envFile = Object.fromEntries(
      readFileSync(path.join(scratch, '.env'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('starts every process on the environment and files compose gives it with deploy/.env and deploy/tls', () => {
    const problems: string[] = [];
    const checks = platformChecks(envFile, scratch, problems);
    expect(checks.map((check) => check.label)).toEqual(
      expect.arrayContaining([
        'identity',
        'catalog',
        'billing',
        'policy',
        'notification',
        'documents',
        'portal',
        'analytics',
        'sandbox-provider',
        'gateway',
      ]),
    );
    // Every process that speaks gRPC has its certificate: its own name, signed by the shared CA.
    for (const check of checks.filter((c) => c.env.GRPC_TLS_CERT_FILE)) {
      const subject = execFileSync(
        'openssl',
        ['x509', '-in', check.env.GRPC_TLS_CERT_FILE, '-noout', '-subject', '-ext', 'subjectAltName'],
        {
          encoding: 'utf8',
        },
      );
      expect(subject).toContain(`CN = ${check.label}`);
      expect(subject).toContain(`DNS:${check.label}`);
      execFileSync('openssl', ['verify', '-CAfile', check.env.GRPC_TLS_CA_FILE, check.env.GRPC_TLS_CERT_FILE], {
        stdio: 'pipe',
      });
    }
    expect(
      checks
        .filter((c) => c.env.GRPC_TLS_CERT_FILE)
        .map((c) => c.label)
        .sort(),
    ).toEqual([
      'analytics',
      'billing',
      'catalog',
      'documents',
      'gateway',
      'identity',
      'notification',
      'policy',
      'portal',
    ]);
    expect(problems).toEqual([]);
    expect(refusals(runConfigLoaders(checks))).toEqual([]);
  });

  it('refuses to start, naming the variable, when deploy/.env lacks one of its secrets', () => {
    for (const missing of Object.keys(envFile)) {
      const env = Object.fromEntries(Object.entries(envFile).filter(([key]) => key !== missing));
      expect(() => platformChecks(env, scratch)).toThrow(missing);
    }
  });
});
