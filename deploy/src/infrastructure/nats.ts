import { connectNats } from '@billing/platform';
import { errorMessage } from './error-message';
import type { LocalServer } from './local-servers';
import { withTimeout } from './with-timeout';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** Resolves when a NATS server with JetStream answers at the URL; throws why not. */
export async function probeNats(url: string): Promise<void> {
  let nc: Awaited<ReturnType<typeof connectNats>> | undefined;
  const connecting = connectNats(url, 'billing-runner-probe');
  try {
    nc = await withTimeout(connecting, 3000, 'no answer within 3 s');
    const jsm = await withTimeout(nc.jetstreamManager(), 3000, 'JetStream did not answer');
    await jsm.getAccountInfo();
  } catch (err) {
    const text = errorMessage(err);
    throw new Error(
      /jetstream not enabled|503/i.test(text) ? `JetStream is not enabled on that server (${text})` : text,
    );
  } finally {
    if (nc) await nc.close().catch(() => undefined);
    // A connection that arrives after the timeout must not keep the process alive.
    else connecting.then((late) => late.close()).catch(() => undefined);
  }
}

/** `nats-server -js`, its JetStream store in `dataDir`, so that a restart finds the streams again. */
export const NATS_SERVER: LocalServer = {
  binary: 'nats-server',
  scheme: 'nats',
  args: (port, dataDir) => ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dataDir],
  probe: probeNats,
  keeps: (dataDir) => `store ${dataDir}`,
};
