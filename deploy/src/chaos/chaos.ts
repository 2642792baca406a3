/**
 * `npm run chaos` (docs/chaos.md): two replicas of the gateway, billing, catalog, notification,
 * identity and policy and one of every other process on one private PostgreSQL, a private NATS
 * and Redis, a mixed merchant load through both gateways, a random replica SIGKILLed (and started
 * again) every 20 to 40 s, NATS, PostgreSQL and Redis restarted once each, and the link between
 * billing and NATS (a proxy of the run's) slowed for a while and cut for a while; then the counts,
 * and exit 1 on a double charge, credit nobody paid for, a lost or duplicated webhook delivery, or
 * a 5xx other than 503.
 *
 * Environment (or --duration <s>, --merchants <n>): CHAOS_DURATION_S [180], CHAOS_MERCHANTS [4],
 * CHAOS_KILL_MIN_S [20], CHAOS_KILL_MAX_S [40], CHAOS_SETTLE_S [120] (how long deliveries may take
 * to catch up after the load), CHAOS_RENEW_EVERY_S [30] (each merchant's test clock a month on),
 * CHAOS_POSTGRES_DOWN_S [5] (PostgreSQL's time down at its restart), CHAOS_NATS_DELAY_MS [200]
 * and CHAOS_NATS_DELAY_S [20] (billing to NATS slowed by that much each way, for that long),
 * CHAOS_NATS_PARTITION_S [15] (billing cut off from NATS that long), CHAOS_LOG_DIR [none] (each
 * process's output in <dir>/<name>-<replica>.log).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { PlatformProcess, ServiceName } from '@billing/testing';
import { NATS_SERVER } from '../infrastructure/nats';
import { REDIS_SERVER } from '../infrastructure/redis';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import type { RequestTally } from './merchant-load';
import { startPrivatePostgres, startPrivateServer, type PrivateServer } from './private-servers';
import type { chargeFigures, producedEvents as ProducedEventsOf, ReceivedEvents } from './tally';

type ProducedEvents = typeof ProducedEventsOf;

const REPLICATED: ServiceName[] = ['gateway', 'billing', 'catalog', 'notification', 'identity', 'policy'];

const { values: args } = parseArgs({
  options: { duration: { type: 'string' }, merchants: { type: 'string' } },
});
const seconds = (value: string | undefined, fallback: number) => (value ? Number(value) : fallback) * 1000;
const DURATION_MS = seconds(args.duration ?? process.env.CHAOS_DURATION_S, 180);
const MERCHANTS = Number(args.merchants ?? process.env.CHAOS_MERCHANTS ?? 4);
const KILL_MIN_MS = seconds(process.env.CHAOS_KILL_MIN_S, 20);
const KILL_MAX_MS = seconds(process.env.CHAOS_KILL_MAX_S, 40);
const SETTLE_MS = seconds(process.env.CHAOS_SETTLE_S, 120);
const RENEW_EVERY_MS = seconds(process.env.CHAOS_RENEW_EVERY_S, 30);
const POSTGRES_DOWN_MS = seconds(process.env.CHAOS_POSTGRES_DOWN_S, 5);
const NATS_DELAY_MS = Number(process.env.CHAOS_NATS_DELAY_MS ?? 200);
const NATS_DELAY_FOR_MS = seconds(process.env.CHAOS_NATS_DELAY_S, 20);
const NATS_PARTITION_MS = seconds(process.env.CHAOS_NATS_PARTITION_S, 15);
const LOG_DIRECTORY = process.env.CHAOS_LOG_DIR || undefined;

const started = Date.now();
const log = (message: string) =>
  process.stdout.write(`[chaos +${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${message}\n`);

async function main(): Promise<number> {
  const [postgres, nats, redis] = await Promise.all([
    startPrivatePostgres(POSTGRES_DOWN_MS),
    startPrivateServer(NATS_SERVER),
    startPrivateServer(REDIS_SERVER),
  ]);
  const natsAddress = new URL(nats.url);
  const billingLink = await startFaultProxy({ host: natsAddress.hostname, port: Number(natsAddress.port) });
  try {
    log(`private PostgreSQL ${new URL(postgres.url).host}, private NATS ${nats.url}, private Redis ${redis.url}`);
    log(`billing reaches NATS through a proxy of the run's at ${billingLink.address.host}:${billingLink.address.port}`);
    return await runOnServers(postgres, nats, redis, billingLink);
  } finally {
    await billingLink.close();
    await Promise.all([postgres.remove(), nats.remove(), redis.remove()]);
  }
}

async function runOnServers(
  postgres: PrivateServer,
  nats: PrivateServer,
  redis: PrivateServer,
  billingLink: FaultProxy,
): Promise<number> {
  // @billing/testing reads the servers' addresses when it loads (its databases module), and the
  // tally queries the databases through it: it is loaded once they point at the private servers.
  process.env.DATABASE_URL = postgres.url;
  process.env.NATS_URL = nats.url;
  process.env.REDIS_URL = redis.url;
  const { listenLocally, startPlatform } = await import('@billing/testing');
  const { GatewayClient, LoadMerchant, RequestTally } = await import('./merchant-load.js');
  const { chargeFigures, producedEvents, ReceivedEvents, unsettledDeliveries } = await import('./tally.js');
  const received = new ReceivedEvents();
  const receiver = await listenLocally((req, body, res) => {
    received.record(req, body);
    res.writeHead(204).end();
  });
  const platform = await startPlatform({
    env: {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      LOG_LEVEL: process.env.LOG_LEVEL || 'error',
      ALLOW_INSECURE_WEBHOOKS: 'true',
      WEBHOOK_TIMEOUT_MS: '5000',
    },
    // Only billing goes through the proxy: the faults are between billing and NATS.
    processEnv: { billing: { NATS_URL: `nats://${billingLink.address.host}:${billingLink.address.port}` } },
    replicas: Object.fromEntries(REPLICATED.map((name) => [name, 2])),
    // Each service migrates its empty database at start, as in production (the private server
    // has no templates).
    freshDatabases: true,
    // Sixteen processes migrating and starting at once on a loaded machine.
    startTimeoutMs: 300_000,
    logDirectory: LOG_DIRECTORY,
  });
  try {
    log(`platform up: ${REPLICATED.map((n) => `2 × ${n}`).join(', ')}, 1 × every other process`);
    const gateways = platform.replicas.gateway.map((p) => `http://127.0.0.1:${p.env.PORT}`);
    const tally = new RequestTally();
    const client = new GatewayClient(gateways, tally);
    const merchants = Array.from(
      { length: MERCHANTS },
      (_, i) => new LoadMerchant(client, `chaos-${i + 1}`, receiver.url, RENEW_EVERY_MS),
    );
    // One after another: registrations hash passwords, which identity does a few at a time.
    for (const merchant of merchants) await merchant.setUp();
    log(`${MERCHANTS} merchants registered; load for ${DURATION_MS / 1000} s`);

    let deadline = Date.now() + DURATION_MS;
    // Ctrl-C ends the load early; the counts and the clean-up still run.
    const endEarly = () => (deadline = Date.now());
    process.once('SIGINT', endEarly).once('SIGTERM', endEarly);
    const loadErrors: string[] = [];
    const load = merchants.map(async (merchant) => {
      while (Date.now() < deadline) {
        await merchant.step().catch((err: Error) => void loadErrors.push(err.message));
      }
    });
    const chaos = runChaos(platform.replicas, { postgres, nats, redis }, billingLink, () => deadline);
    await Promise.all([...load, chaos]);

    log(`load over; waiting up to ${SETTLE_MS / 1000} s for deliveries to settle`);
    const settleBy = Date.now() + SETTLE_MS;
    while ((await unsettledDeliveries(platform)) > 0 && Date.now() < settleBy) await sleep(1_000);
    // Events still in an outbox or on their way to notification are given the same time.
    const produced = await waitForReceipts(producedEvents, platform, received, settleBy);
    return report(
      tally,
      loadErrors,
      produced,
      received,
      await chargeFigures(platform),
      await unsettledDeliveries(platform),
    );
  } finally {
    await platform.stop();
    await receiver.close();
  }
}

/**
 * SIGKILLs a random replica (services in shuffled rounds) every KILL_MIN..KILL_MAX and starts it
 * again; NATS, PostgreSQL and Redis restart once; the billing-NATS link is slowed once and cut once.
 */
async function runChaos(
  replicas: Record<ServiceName, PlatformProcess[]>,
  { postgres, nats, redis }: Record<'postgres' | 'nats' | 'redis', PrivateServer>,
  billingLink: FaultProxy,
  deadline: () => number,
): Promise<void> {
  const span = deadline() - Date.now();
  // Independent of the kills (a replica's restart takes a while on a loaded machine).
  const outage = async (server: PrivateServer, after: number, how = '') => {
    await sleep(after);
    if (Date.now() >= deadline()) return;
    log(`restarting ${server.name}${how}`);
    await server.restart();
    log(`${server.name} back`);
  };
  const linkFault = async (after: number, what: string, fault: () => void, lastsMs: number) => {
    await sleep(after);
    if (Date.now() >= deadline()) return;
    log(`billing-NATS link: ${what} for ${lastsMs / 1000} s (${billingLink.connections()} connections)`);
    fault();
    await sleep(lastsMs);
    billingLink.heal();
    log('billing-NATS link healed');
  };
  await Promise.all([
    linkFault(
      (3 * span) / 20,
      `${NATS_DELAY_MS} ms delay each way`,
      () => billingLink.delay(NATS_DELAY_MS),
      NATS_DELAY_FOR_MS,
    ),
    outage(nats, span / 3),
    outage(postgres, span / 2, ` (immediate shutdown, ${POSTGRES_DOWN_MS / 1000} s down, crash recovery)`),
    outage(redis, (2 * span) / 3),
    linkFault((3 * span) / 4, 'partition', () => billingLink.partition(), NATS_PARTITION_MS),
    killReplicas(replicas, deadline),
  ]);
}

/** A uniformly shuffled copy (Fisher-Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

async function killReplicas(replicas: Record<ServiceName, PlatformProcess[]>, deadline: () => number): Promise<void> {
  // Victims come from a shuffled round of the replicated services, so every service loses a
  // replica in each round of REPLICATED.length kills (a run of a few minutes kills them all).
  let round: ServiceName[] = [];
  for (;;) {
    const nextKill = Date.now() + KILL_MIN_MS + Math.random() * (KILL_MAX_MS - KILL_MIN_MS);
    while (Date.now() < Math.min(nextKill, deadline())) await sleep(250);
    if (Date.now() >= deadline()) return;
    if (round.length === 0) round = shuffled(REPLICATED);
    const service = round.pop()!;
    const victim = replicas[service][Math.floor(Math.random() * replicas[service].length)];
    const index = replicas[service].indexOf(victim) + 1;
    log(`SIGKILL ${victim.name} #${index} (pid ${victim.pid})`);
    await victim.stop('SIGKILL');
    // A loaded machine may take long to start a process; the load meanwhile runs on the other
    // replica. A process that cannot start (PostgreSQL restarting under it) is started again
    // after a pause, as Kubernetes restarts a crashed container with a back-off, for two minutes.
    const startBy = Date.now() + 120_000;
    for (;;) {
      try {
        await victim.start(180_000);
        break;
      } catch (err) {
        if (Date.now() >= startBy) throw err;
        log(`${victim.name} #${index} did not start (${(err as Error).message.split('\n')[0]}); again in 2 s`);
        await victim.stop('SIGKILL');
        await sleep(2_000);
      }
    }
    log(`${victim.name} #${index} started again`);
  }
}

async function waitForReceipts(
  producedEvents: ProducedEvents,
  platform: Parameters<typeof producedEvents>[0],
  received: ReceivedEvents,
  by: number,
): Promise<Map<string, string>> {
  for (;;) {
    const produced = await producedEvents(platform);
    const missing = [...produced.keys()].filter((id) => !received.deliveriesByEvent.has(id));
    if (missing.length === 0 || Date.now() >= by) return produced;
    await sleep(1_000);
  }
}

function report(
  tally: RequestTally,
  loadErrors: string[],
  produced: Map<string, string>,
  received: ReceivedEvents,
  charges: Awaited<ReturnType<typeof chargeFigures>>,
  unsettled: number,
): number {
  const lost = [...produced.keys()].filter((id) => !received.deliveriesByEvent.has(id));
  const duplicated = [...received.deliveriesByEvent].filter(([, deliveries]) => deliveries.size > 1);
  const unexpected = tally.unexpected();
  const line = (label: string, value: unknown) => process.stdout.write(`  ${label.padEnd(44)} ${String(value)}\n`);
  process.stdout.write(`\nchaos run of ${Math.round((Date.now() - started) / 1000)} s, ${new Date().toISOString()}\n`);
  line('requests', tally.total);
  line('answers and errors by status', [...tally.byStatus].map(([s, n]) => `${s}: ${n}`).join(', '));
  line(
    'non-2xx by status',
    [...tally.byStatus]
      .filter(([s]) => !/^2\d\d$/.test(s))
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ') || 'none',
  );
  line('4xx answers by request', [...tally.refusals].map(([r, n]) => `${r}: ${n}`).join('; ') || 'none');
  line('checkout payments interrupted by a kill', tally.interruptedCheckouts);
  line('load steps that failed', `${loadErrors.length}${loadErrors.length ? ` (first: ${loadErrors[0]})` : ''}`);
  line('invoices by status', charges.invoicesByStatus.map(([s, n]) => `${s}: ${n}`).join(', '));
  line(
    'invoices by provider charges kept',
    charges.invoicesByNetCharges.map(([c, n]) => `${c} charge(s): ${n}`).join(', '),
  );
  line(
    'invoices by provider charges refunded',
    charges.invoicesByRefunds.map(([c, n]) => `${c} refund(s): ${n}`).join(', ') || 'none',
  );
  line('double-charged invoices', charges.doubleCharged.length);
  line('kept charges of no invoice', charges.unattributed.length);
  line('customers with credit nobody paid for', charges.creditWithoutPayment.length);
  line('events produced (webhook-bound)', produced.size);
  line(
    'events delivered (distinct event ids)',
    [...produced.keys()].filter((id) => received.deliveriesByEvent.has(id)).length,
  );
  line('webhook requests received', received.receipts);
  line('lost deliveries', lost.length);
  line('duplicated deliveries (2+ delivery ids)', duplicated.length);
  line('deliveries still pending', unsettled);
  line('5xx other than 503', unexpected.map(([s, n]) => `${s}: ${n}`).join(', ') || 'none');
  const failures = [
    charges.doubleCharged.length > 0 && `double charges: ${charges.doubleCharged.join(', ')}`,
    charges.unattributed.length > 0 && `charges kept for no invoice: ${charges.unattributed.join(', ')}`,
    charges.creditWithoutPayment.length > 0 &&
      `credit created without a payment: customers ${charges.creditWithoutPayment.join(', ')}`,
    lost.length > 0 &&
      `lost deliveries: ${lost
        .slice(0, 10)
        .map((id) => `${id} (${produced.get(id)})`)
        .join(', ')}`,
    duplicated.length > 0 &&
      `duplicated deliveries: ${duplicated
        .slice(0, 10)
        .map(([id]) => id)
        .join(', ')}`,
    unexpected.length > 0 && `5xx other than 503: ${unexpected.map(([s, n]) => `${s} × ${n}`).join(', ')}`,
  ].filter((f): f is string => Boolean(f));
  process.stdout.write(failures.length ? `\nFAILED\n${failures.map((f) => `  ${f}\n`).join('')}` : '\nPASSED\n');
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[chaos] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
