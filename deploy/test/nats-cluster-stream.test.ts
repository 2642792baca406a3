/**
 * The events stream on a real three-server JetStream cluster (Debian's nats-server 2.9, started
 * by the test): created with its settings' replicas, byte cap and placement, an existing R1
 * stream brought to R3, publishes refused at the cap rather than events dropped, and a publish
 * stored with the stream's leader killed (docs/deployment.md, "NATS").
 */
import {
  connectNats,
  createLogger,
  defaultEventStreamSettings,
  ensureEventStream,
  type EventStreamSettings,
  type NatsConnection,
} from '@billing/platform';
import { uniqueRunId } from '@billing/testing';
import { startNatsCluster, type NatsCluster } from '../src/infrastructure/nats-cluster';

jest.setTimeout(120_000);

/** Calls `request` until it answers (a cluster electing a leader has no answer), for 60 s at most. */
async function answered<T>(request: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await request();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

describe('events stream on a three-server NATS cluster', () => {
  const logger = createLogger('nats-cluster-test', 'silent');
  let cluster: NatsCluster;
  let nats: NatsConnection;
  const runId = uniqueRunId('r3');
  let streams = 0;
  /** A fresh stream's settings: defaults, then `changes`. */
  const settings = (changes: Partial<EventStreamSettings> = {}): EventStreamSettings => {
    streams += 1;
    return { ...defaultEventStreamSettings(`R3_${runId}_${streams}`, `r3_${runId}_${streams}`), ...changes };
  };

  beforeAll(async () => {
    cluster = await startNatsCluster(`events-${runId}`.slice(0, 30));
    nats = await connectNats(cluster.nodes[0]!.url, 'nats-cluster-test');
  });

  afterAll(async () => {
    await nats?.close();
    await cluster?.remove();
  });

  it('creates the stream with three copies, its byte cap, DiscardNew and its cluster placement', async () => {
    const wanted = settings({ replicas: 3, maxBytes: 64 * 1024 * 1024, placement: { cluster: cluster.name } });
    expect(await ensureEventStream(nats, wanted, logger)).toEqual({ created: true, changed: [] });
    const info = await (await nats.jetstreamManager()).streams.info(wanted.name);
    expect(info.config).toMatchObject({
      num_replicas: 3,
      max_bytes: 64 * 1024 * 1024,
      discard: 'new',
      max_age: 7 * 86_400_000 * 1_000_000,
      placement: { cluster: cluster.name },
    });
    expect(info.cluster?.name).toBe(cluster.name);
    const holders = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((peer) => peer.name)].sort();
    expect(holders).toEqual(cluster.nodes.map((node) => node.name).sort());
  });

  it('brings an existing R1 stream to three copies, saying what changed, and then changes nothing', async () => {
    const single = settings();
    await ensureEventStream(nats, single, logger);
    const jsm = await nats.jetstreamManager();
    expect((await jsm.streams.info(single.name)).cluster?.replicas ?? []).toHaveLength(0);
    await nats.jetstream().publish(`${single.subjectPrefix}.test.kept`, 'before the change');

    const tripled = { ...single, replicas: 3, maxBytes: 32 * 1024 * 1024 };
    const { created, changed } = await ensureEventStream(nats, tripled, logger);
    expect(created).toBe(false);
    expect(changed).toEqual(['num_replicas: 1 -> 3', 'max_bytes: -1 -> 33554432']);
    const info = await jsm.streams.info(single.name);
    expect(info.config.num_replicas).toBe(3);
    const holders = new Set([info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((peer) => peer.name)]);
    expect([...holders].sort()).toEqual(cluster.nodes.map((node) => node.name).sort());
    expect(info.state.messages).toBe(1);
    expect(await ensureEventStream(nats, tripled, logger)).toEqual({ created: false, changed: [] });
  });

  it('places a stream on the server its placement tags name', async () => {
    const tagged = settings({ placement: { tags: ['node:2'] } });
    await ensureEventStream(nats, tagged, logger);
    const info = await (await nats.jetstreamManager()).streams.info(tagged.name);
    expect(info.cluster?.leader).toBe(cluster.nodes[2]!.name);
  });

  it('refuses publishes once the byte cap is reached and keeps every event it stored', async () => {
    const capped = settings({ replicas: 3, maxBytes: 1024 * 1024 });
    await ensureEventStream(nats, capped, logger);
    const js = nats.jetstream();
    const body = Buffer.alloc(100 * 1024, 'x');
    let stored = 0;
    let refusal: unknown;
    for (let i = 0; i < 20 && refusal === undefined; i++) {
      await js.publish(`${capped.subjectPrefix}.test.big`, body).then(
        () => (stored += 1),
        (err: unknown) => (refusal = err),
      );
    }
    expect((refusal as { api_error?: { description?: string } }).api_error?.description).toBe('maximum bytes exceeded');
    const state = (await (await nats.jetstreamManager()).streams.info(capped.name)).state;
    // DiscardOld would have dropped the first events to take the later ones.
    expect(state).toMatchObject({ first_seq: 1, messages: stored });
    expect(stored).toBeGreaterThan(5);
  });

  it('refuses more copies than the cluster has servers, naming the change', async () => {
    await expect(ensureEventStream(nats, settings({ replicas: 5 }), logger)).rejects.toThrow(/no suitable peers/);
    const single = settings();
    await ensureEventStream(nats, single, logger);
    await expect(ensureEventStream(nats, { ...single, replicas: 5 }, logger)).rejects.toThrow(
      /could not be changed \(num_replicas: 1 -> 5\)/,
    );
  });

  it('stores a publish with the stream leader killed: the two other copies are a quorum', async () => {
    const replicated = settings({ replicas: 3 });
    await ensureEventStream(nats, replicated, logger);
    const jsm = await nats.jetstreamManager();
    // A new R3 stream elects its leader and catches its copies up within seconds (longer on a
    // busy machine): until then a request to it has no answer.
    const settled = await answered(async () => {
      const info = await jsm.streams.info(replicated.name);
      const current = (info.cluster?.replicas ?? []).filter((replica) => replica.current).length;
      if (!info.cluster?.leader || current < 2) throw new Error('stream not settled');
      return info;
    });
    const killed = cluster.nodes.find((node) => node.name === settled.cluster!.leader)!;
    const survivor = cluster.nodes.find((node) => node !== killed)!;
    const client = await connectNats(survivor.url, 'nats-cluster-test-survivor');
    try {
      const publish = (what: string) =>
        client.jetstream().publish(`${replicated.subjectPrefix}.test.${what}`, what, {
          msgID: `${what}-${runId}`,
          timeout: 2000,
        });
      await answered(() => publish('before'));
      await killed.process.stop('SIGKILL');
      // The two left elect a new leader; until then a publish has no answer, and its retry is
      // stored once (the same msgID).
      const ack = await answered(() => publish('after'));
      expect(ack.seq).toBe(2);
      const info = await answered(async () => (await client.jetstreamManager()).streams.info(replicated.name));
      expect(info.cluster?.leader).not.toBe(killed.name);
      expect(info.state.messages).toBe(2);
    } finally {
      await client.close();
    }
  });
});
