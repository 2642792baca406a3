import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export { freePort } from '@billing/testing';

/** true when nothing listens on the port (on any address), so a process can bind it. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

/** Resolves true when the child has exited, false when `ms` passed first. */
export async function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  const timeout = new Promise<false>((resolve) => setTimeout(resolve, ms, false).unref());
  return Promise.race([once(child, 'exit').then(() => true as const), timeout]);
}
