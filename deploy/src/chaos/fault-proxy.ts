import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 that the chaos run puts between some processes and a server
 * (docs/chaos.md): it forwards every connection to the target, and can slow the link (each
 * chunk held `ms` in each direction, order kept), cut it (a partition: nothing crosses either
 * way and new connections hang unanswered, as behind a dead switch; what was sent meanwhile
 * arrives after the heal, as TCP retransmission would deliver it) and heal it.
 */
export interface FaultProxy {
  /** `127.0.0.1:<port>`, where clients connect instead of the target. */
  address: { host: string; port: number };
  /** Every byte held this long in each direction (0: forwarded at once). */
  delay(ms: number): void;
  /** Nothing crosses until heal(); connections opened meanwhile wait unanswered. */
  partition(): void;
  /** Ends a partition and a delay: what was held is forwarded, in order. */
  heal(): void;
  /** Connections open now (client side). */
  connections(): number;
  close(): Promise<void>;
}

/** One direction of one proxied connection: chunks wait here while delayed or partitioned. */
class Pipe {
  private readonly queue: { chunk: Buffer; due: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly to: Socket,
    private readonly link: { delayMs: number; partitioned: boolean },
  ) {}

  push(chunk: Buffer): void {
    // A chunk never overtakes an earlier one, even when the delay shrinks in between.
    const last = this.queue.at(-1)?.due ?? 0;
    this.queue.push({ chunk, due: Math.max(Date.now() + this.link.delayMs, last) });
    this.flush();
  }

  /** Writes every chunk that is due, and waits for the next one. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.link.partitioned || this.to.destroyed) return;
    const now = Date.now();
    while (this.queue.length > 0 && (this.queue[0].due <= now || this.link.delayMs === 0)) {
      this.to.write(this.queue.shift()!.chunk);
    }
    if (this.queue.length > 0) this.timer = setTimeout(() => this.flush(), this.queue[0].due - now);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

/** A proxy to `target` on a free port of 127.0.0.1. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const link = { delayMs: 0, partitioned: false };
  const pipes = new Set<Pipe>();
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  /** Connections accepted during a partition, connected to the target at the heal. */
  const waiting: (() => void)[] = [];

  const proxy = (client: Socket) => {
    const upstream = createConnection(target);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    const toTarget = new Pipe(upstream, link);
    const toClient = new Pipe(client, link);
    pipes.add(toTarget).add(toClient);
    client.on('data', (chunk) => toTarget.push(chunk));
    upstream.on('data', (chunk) => toClient.push(chunk));
    upstream.on('connect', () => toTarget.flush());
    // Either end closing (or failing) closes the other, as a real link would show it.
    const end = () => {
      toTarget.stop();
      toClient.stop();
      pipes.delete(toTarget);
      pipes.delete(toClient);
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on('close', end).on('error', end);
  };

  const server: Server = createServer((client) => {
    client.setNoDelay(true);
    clients.add(client);
    client.once('close', () => clients.delete(client));
    if (link.partitioned) {
      // The client's connect succeeded (a SYN is answered by the kernel's backlog), but nothing
      // comes back until the heal: what a client behind a partition sees.
      sockets.add(client);
      client.pause();
      const later = () => {
        sockets.delete(client);
        if (client.destroyed) return;
        proxy(client);
        client.resume();
      };
      waiting.push(later);
      client.once('close', () => sockets.delete(client));
      return;
    }
    proxy(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };

  return {
    address: { host: '127.0.0.1', port },
    delay: (ms) => {
      link.delayMs = ms;
    },
    partition: () => {
      link.partitioned = true;
    },
    heal: () => {
      link.partitioned = false;
      link.delayMs = 0;
      for (const pipe of pipes) pipe.flush();
      for (const resume of waiting.splice(0)) resume();
    },
    connections: () => clients.size,
    close: async () => {
      for (const pipe of pipes) pipe.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
