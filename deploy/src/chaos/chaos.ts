/**
 * `npm run chaos` (docs/chaos.md): two replicas of the gateway, billing, catalog and notification
 * and one of every other process on one set of databases, a private NATS and Redis, a mixed
 * merchant load through both gateways, a random replica SIGKILLed (and started again) every
 * 20 to 40 s, NATS restarted once and Redis once; then the counts, and exit 1 on a double charge,
 * credit nobody paid for, a lost or duplicated webhook delivery, or a 5xx other than 503.
 *
 * Environment (or --duration <s>, --merchants <n>): CHAOS_DURATION_S [180], CHAOS_MERCHANTS [4],
 * CHAOS_KILL_MIN_S [20], CHAOS_KILL_MAX_S [40], CHAOS_SETTLE_S [120] (how long deliveries may take
 * to catch up after the load), CHAOS_RENEW_EVERY_S [30] (each merchant's test clock a month on).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { listenLocally, startPlatform, type PlatformProcess, type ServiceName } from '@billing/testing';
import { NATS_SERVER } from '../infrastructure/nats';
import { REDIS_SERVER } from '../infrastructure/redis';
import { GatewayClient, LoadMerchant, RequestTally } from './merchant-load';
import { startPrivateServer, type PrivateServer } from './private-servers';
import { chargeFigures, producedEvents, ReceivedEvents, unsettledDeliveries } from './tally';

const REPLICATED: ServiceName[] = ['gateway', 'billing', 'catalog', 'notification'];

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

const started = Date.now();
const log = (message: string) =>
  process.stdout.write(`[chaos +${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${message}\n`);

async function main(): Promise<number> {
  const [nats, redis] = await Promise.all([startPrivateServer(NATS_SERVER), startPrivateServer(REDIS_SERVER)]);
  log(`private NATS ${nats.url}, private Redis ${redis.url}`);
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
    replicas: Object.fromEntries(REPLICATED.map((name) => [name, 2])),
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
    const chaos = runChaos(platform.replicas, nats, redis, () => deadline);
    await Promise.all([...load, chaos]);

    log(`load over; waiting up to ${SETTLE_MS / 1000} s for deliveries to settle`);
    const settleBy = Date.now() + SETTLE_MS;
    while ((await unsettledDeliveries(platform)) > 0 && Date.now() < settleBy) await sleep(1_000);
    // Events still in an outbox or on their way to notification are given the same time.
    const produced = await waitForReceipts(platform, received, settleBy);
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
    await nats.remove();
    await redis.remove();
  }
}

/** SIGKILLs a random replica (services in shuffled rounds) every KILL_MIN..KILL_MAX and starts it again; NATS and Redis restart once. */
async function runChaos(
  replicas: Record<ServiceName, PlatformProcess[]>,
  nats: PrivateServer,
  redis: PrivateServer,
  deadline: () => number,
): Promise<void> {
  const span = deadline() - Date.now();
  // Independent of the kills (a replica's restart takes a while on a loaded machine).
  const outage = async (server: PrivateServer, after: number) => {
    await sleep(after);
    if (Date.now() >= deadline()) return;
    log(`restarting ${server.name}`);
    await server.restart();
    log(`${server.name} back`);
  };
  await Promise.all([outage(nats, span / 3), outage(redis, (2 * span) / 3), killReplicas(replicas, deadline)]);
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
    // A loaded machine may take long to start a process; the load meanwhile runs on the other replica.
    for (let tries = 1; ; tries++) {
      try {
        await victim.start(180_000);
        break;
      } catch (err) {
        if (tries === 3) throw err;
        log(`${victim.name} #${index} did not start (${(err as Error).message.split('\n')[0]}); again`);
        await victim.stop('SIGKILL');
      }
    }
    log(`${victim.name} #${index} started again`);
  }
}

async function waitForReceipts(
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
