import { Client } from 'pg';

/** The advisory lock whose holder is the one replica consuming the stream ("ana" + 1). */
const CONSUMER_LOCK = 0x616e62;

export interface ConsumerLeadership {
  /** Resolves once this process holds the lock (at once when no other replica does). */
  acquired: Promise<void>;
  /** Resolves when the lock's connection ends, by release() or not (the lock is then lost). */
  lost: Promise<void>;
  /** Gives the lock up (or stops waiting for it). */
  release(): Promise<void>;
}

/**
 * One replica at a time consumes (docs/decisions.md, "Analytics: a service of its own"): the
 * holder of a session advisory lock on a connection of its own. JetStream would hand the
 * replicas of one durable consumer interleaved batches, and two facts of one subscription taken
 * by two replicas at once could then be applied in either order; one consumer applies them in the
 * stream's order (billing's commit order). The others serve queries and wait: when the holder
 * stops or dies, its session ends, the lock passes to one of them, and the events the dead one
 * had not acked come again. The keepalives end a session whose host vanished in about 40 s.
 */
export function waitForConsumerLeadership(databaseUrl: string): ConsumerLeadership {
  const client = new Client({ connectionString: databaseUrl, keepAlive: true, application_name: 'analytics-leader' });
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    await client.end().catch(() => undefined);
  };
  // A connection that ends or fails loses the lock: `lost` tells the caller to stop consuming.
  const lost = new Promise<void>((resolve) => {
    client.once('end', () => resolve());
    client.once('error', () => resolve());
  });
  client.on('error', () => undefined);
  const acquired = (async () => {
    await client.connect();
    await client.query('SET tcp_keepalives_idle = 10');
    await client.query('SET tcp_keepalives_interval = 10');
    await client.query('SET tcp_keepalives_count = 3');
    await client.query('SELECT pg_advisory_lock($1)', [CONSUMER_LOCK]);
  })();
  return { acquired, lost, release: end };
}
