import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@billing/testing';
import { LOCAL_SERVER_START_TIMEOUT_MS, localServerProcess, type LocalServer } from '../infrastructure/local-servers';

/**
 * A nats-server or redis-server of the chaos run's own, on a free port with its data in a
 * directory of its own: the run restarts it, which it must never do to the servers other
 * developers of this machine use.
 */
export interface PrivateServer {
  name: LocalServer['binary'];
  url: string;
  /** Stops it and starts it again, on the same port and data. */
  restart(): Promise<void>;
  /** Stops it and deletes its data. */
  remove(): Promise<void>;
}

export async function startPrivateServer(server: LocalServer): Promise<PrivateServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `chaos-${server.scheme}-`));
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    const { process: serverProcess, url } = localServerProcess(server, await freePort(), dataDir);
    await serverProcess.start(LOCAL_SERVER_START_TIMEOUT_MS);
    return {
      name: server.binary,
      url,
      restart: async () => {
        await serverProcess.stop();
        await serverProcess.start(LOCAL_SERVER_START_TIMEOUT_MS);
      },
      remove: async () => {
        await serverProcess.stop();
        removeData();
      },
    };
  } catch (err) {
    // A server that did not start has been stopped (PlatformProcess.start).
    removeData();
    throw err;
  }
}
