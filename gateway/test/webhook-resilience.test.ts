/**
 * @lane timing-critical kills notification and cuts NATS mid-delivery
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processIsAlive } from '@billing/platform';
import {
  createReplica,
  freePort,
  listenLocally,
  queryDatabase,
  startPlatform,
  type LocalEndpoint,
  type PlatformUnderTest,
} from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type RegisteredMerchant } from './support/api';

/**
 * A merchant endpoint that answers 500 while `healthy` is false, never answers while `hanging`,
 * and counts what it accepted.
 */
class CountingReceiver {
  healthy = false;
  hanging = false;
  /** Requests taken while hanging (their senders are killed or time out). */
  held = 0;
  /** Event id -> how many times it was accepted (answered 2xx). */
  readonly accepted = new Map<string, number>();
  private endpoint?: LocalEndpoint;
  url = '';

  async start(): Promise<this> {
    this.endpoint = await listenLocally((_req, body, res) => {
      if (this.hanging) {
        // Never answered: its sender times out or dies.
        this.held++;
        return;
      }
      if (!this.healthy) return void res.writeHead(500).end();
      const { id } = JSON.parse(body.toString('utf8')) as { id: string };
      this.accepted.set(id, (this.accepted.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
    this.url = `${this.endpoint.url}/hooks`;
    return this;
  }

  async waitForEvents(ids: string[], ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ids.every((id) => this.accepted.has(id))) {
      if (Date.now() > deadline) {
        const missing = ids.filter((id) => !this.accepted.has(id)).length;
        throw new Error(`${missing} of ${ids.length} events not delivered`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    await this.endpoint?.close();
  }
}

/** The webhook timeout of the replica killed mid-attempt: longer than its ten attempts take to arrive. */
const REPLICA_WEBHOOK_TIMEOUT_MS = 8000;
/** A NATS server of this test alone (JetStream on disk), so restarting it disturbs no other suite. */
class PrivateNats {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'nats-'));
  port = 0;

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.port) this.port = await freePort();
    this.child = spawn('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.dir], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = connect(this.port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
      if (up) return;
      if (Date.now() > deadline) throw new Error('nats-server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// Long enough that no delivery runs out of attempts while a loaded machine is still creating the
// 30 customers of the first test (five attempts span 16 s), short enough to retry soon after.
const DELAYS = [4000, 4000, 4000, 4000];

describe('webhook deliveries survive a killed notification service and a restarted NATS', () => {
  let nats: PrivateNats;
  let platform: PlatformUnderTest;
  let api: Api;
  let merchant: RegisteredMerchant;
  let receiver: CountingReceiver;

  beforeAll(async () => {
    nats = new PrivateNats();
    await nats.start();
    platform = await startPlatform({
      only: ['identity', 'sandbox-provider', 'billing', 'notification', 'gateway'],
      env: {
        NATS_URL: nats.url,
        ALLOW_INSECURE_WEBHOOKS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','),
        WEBHOOK_TIMEOUT_MS: '1000',
        DELIVERY_POLL_MS: '50',
      },
    });
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'resilience');
    receiver = await new CountingReceiver().start();
    const hook = await api('POST', '/api/v1/webhooks', {
      apiKey: merchant.testKey,
      token: merchant.token,
      body: { url: receiver.url, events: ['customer.created'] },
    });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
    await nats?.remove();
  });

  /** customer.created events, produced by billing's outbox relay as in production. */
  const createCustomers = async (count: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let k = 0; k < count; k++) {
      const res = await api('POST', '/api/v1/customers', {
        apiKey: merchant.testKey,
        body: { email: `c-${randomUUID().slice(0, 8)}@example.com` },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    return ids;
  };
  /** The event ids of those customers' customer.created events, from billing's outbox. */
  const eventIdsOf = async (customerIds: string[]): Promise<string[]> =>
    (
      await queryDatabase<{ id: string }>(
        platform.database('billing'),
        `SELECT id FROM outbox_events WHERE event_type = 'customer.created' AND payload -> 'data' ->> 'id' = ANY($1)`,
        [customerIds],
      )
    ).map((r) => r.id);

  /**
   * Every delivery of these events recorded SUCCEEDED: nothing is left to send them again, so
   * a count taken now is final (a duplicate would have had to come from an attempt before this).
   */
  async function deliveriesSettled(events: string[]): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [row] = await queryDatabase<{ open: number }>(
        platform.database('notification'),
        `SELECT count(*) FILTER (WHERE status <> 'SUCCEEDED')::int AS open FROM deliveries WHERE event_id = ANY($1::uuid[])`,
        [events],
      );
      if (row.open === 0) return;
      if (Date.now() > deadline) throw new Error(`${row.open} deliveries not recorded SUCCEEDED`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('SIGKILL of notification with deliveries pending: every event delivered exactly once after restart', async () => {
    receiver.healthy = false;
    const before = await createCustomers(30);
    // Wait until every delivery exists and has failed at least once (pending, retrying).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [row] = await queryDatabase<{ n: number }>(
        platform.database('notification'),
        `SELECT count(*)::int AS n FROM deliveries WHERE status = 'RETRYING'`,
      );
      if (row.n >= 30) break;
      if (Date.now() > deadline) throw new Error(`only ${row.n} deliveries retrying`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await platform.processes.notification.stop('SIGKILL');
    const whileDead = await createCustomers(30);
    receiver.healthy = true;
    await platform.processes.notification.start();

    const events = await eventIdsOf([...before, ...whileDead]);
    expect(events).toHaveLength(60);
    await receiver.waitForEvents(events);
    await deliveriesSettled(events);
    expect(events.map((id) => receiver.accepted.get(id))).toEqual(events.map(() => 1));
  });

  it('a process killed while its first attempts hang: the deliveries it wrote claimed go out once, after the lease', async () => {
    await platform.processes.notification.stop();
    // Its attempts hang until the kill, which comes once all ten reached the receiver: on a loaded
    // machine that has taken longer than the platform's 1 s timeout, which then recorded attempts.
    const replica = await createReplica(platform, 'notification', {
      DELIVERY_POLL_MS: '60000',
      WEBHOOK_TIMEOUT_MS: String(REPLICA_WEBHOOK_TIMEOUT_MS),
    });
    await replica.process.start();
    receiver.hanging = true;
    receiver.held = 0;
    let events: string[] = [];
    try {
      events = await eventIdsOf(await createCustomers(10));
      const deadline = Date.now() + 10_000;
      while (receiver.held < 10) {
        if (Date.now() > deadline) throw new Error(`only ${receiver.held} attempts reached the receiver`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await replica.process.stop('SIGKILL');
    }
    // Killed between writing the deliveries (claimed) and recording any attempt.
    const leased = await queryDatabase<{ attempts: number; lease_until: Date | null }>(
      platform.database('notification'),
      'SELECT attempts, lease_until FROM deliveries WHERE event_id = ANY($1::uuid[])',
      [events],
    );
    expect(leased).toHaveLength(10);
    expect(leased.every((d) => d.attempts === 0 && d.lease_until !== null)).toBe(true);
    receiver.hanging = false;
    receiver.healthy = true;
    await platform.processes.notification.start();
    await receiver.waitForEvents(events, 30_000);
    await deliveriesSettled(events);
    expect(events.map((id) => receiver.accepted.get(id))).toEqual(events.map(() => 1));
    // The restarted worker took them only once the dead process's lease had run out.
    const sent = await queryDatabase<{ at: Date; created_at: Date; attempt: number }>(
      platform.database('notification'),
      `SELECT a.at, d.created_at, a.attempt FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id
        WHERE d.event_id = ANY($1::uuid[])`,
      [events],
    );
    expect(sent).toHaveLength(10);
    const leaseMs = REPLICA_WEBHOOK_TIMEOUT_MS + 5000; // the killed replica's timeout + the lease margin
    for (const row of sent) {
      expect(row.attempt).toBe(1);
      expect(row.at.getTime() - row.created_at.getTime()).toBeGreaterThanOrEqual(leaseMs);
    }
  });

  it('NATS restarted while events are produced: every event delivered exactly once', async () => {
    receiver.healthy = true;
    receiver.hanging = false;
    // Running whatever the test before left (it restarts notification once its checks pass).
    if (platform.processes.notification.pid === undefined || !processIsAlive(platform.processes.notification.pid)) {
      await platform.processes.notification.start();
    }
    const producing = createCustomers(60);
    await new Promise((r) => setTimeout(r, 300));
    await nats.stop();
    // NATS down for a second while customers are created: the outage is the point, not an event.
    await new Promise((r) => setTimeout(r, 1000));
    await nats.start();
    const customers = await producing;

    const events = await eventIdsOf(customers);
    expect(events).toHaveLength(60);
    await receiver.waitForEvents(events, 45_000);
    await deliveriesSettled(events);
    expect(events.map((id) => receiver.accepted.get(id))).toEqual(events.map(() => 1));
  });
});
