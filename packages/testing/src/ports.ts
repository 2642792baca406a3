import { createServer } from 'node:net';

/**
 * Ports for the processes tests start come from below Linux's ephemeral range (32768-60999 by
 * default, /proc/sys/net/ipv4/ip_local_port_range). A port the OS picks for a listener (port 0)
 * comes from that range too, and between picking it and the process's own listen, any outgoing
 * connection (a pool's next PostgreSQL connection) may take it as its source port: EADDRINUSE at
 * start, a whole suite failed. Below the range only another listener can take it.
 */
const LOWEST = 20_000;
const HIGHEST = 32_767;

/**
 * The slice of that range this process takes ports from: lanes of one test run (TEST_LANE of
 * TEST_LANES, docs/decisions.md) each have their own, since two processes that each check a
 * port free may both hand it out before either listens on it.
 */
export function portRange(env: NodeJS.ProcessEnv = process.env): { lowest: number; highest: number } {
  const lanes = Number(env.TEST_LANES) || 1;
  const lane = Number(env.TEST_LANE) || 1;
  if (lanes <= 1 || lane < 1 || lane > lanes) return { lowest: LOWEST, highest: HIGHEST };
  const size = Math.floor((HIGHEST - LOWEST + 1) / lanes);
  const lowest = LOWEST + (lane - 1) * size;
  return { lowest, highest: lowest + size - 1 };
}
/** Handed out by this process already: two calls never give the same port before it is used. */
const handedOut = new Set<number>();

/** True when `port` can be listened on right now on `host` (every interface when none). */
function canListen(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** True when `port` can be listened on right now, on every interface (as the gateway does) and on 127.0.0.1. */
export async function portIsFree(port: number): Promise<boolean> {
  return (await canListen(port)) && (await canListen(port, '127.0.0.1'));
}

/** A TCP port free right now, outside the ephemeral range, not handed out before by this process. */
export async function freePort(): Promise<number> {
  const { lowest, highest } = portRange();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (handedOut.has(port)) continue;
    if (await portIsFree(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${lowest} and ${highest} after 200 tries`);
}
