import { Redis } from 'ioredis';
import type { LocalServer } from './local-servers';
import { withTimeout } from './with-timeout';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Resolves when a Redis server answers PING at the URL; throws why not. */
export async function probeRedis(url: string, timeoutMs = 3000): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The socket's own error (e.g. ECONNREFUSED) says more than the rejected connect().
  let cause: unknown;
  client.on('error', (err) => (cause ??= err));
  try {
    await client.connect();
    await withTimeout(client.ping(), timeoutMs, `no answer to PING within ${timeoutMs} ms`);
  } catch (err) {
    throw cause ?? err;
  } finally {
    client.disconnect();
  }
}

/** A throw-away redis-server: the gateways' rate-limit counts only, so nothing is saved to disk. */
export const REDIS_SERVER: LocalServer = {
  binary: 'redis-server',
  scheme: 'redis',
  args: (port, dataDir) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dataDir,
  ],
  probe: (url) => probeRedis(url, 1000),
  keeps: () => 'nothing saved to disk',
};
