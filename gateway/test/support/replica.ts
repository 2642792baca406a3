import { resolve } from 'node:path';
import { freePort, PlatformProcess, type PlatformUnderTest } from '@billing/testing';

/** Another gateway process on the platform's databases and services: a second replica. */
export async function startGatewayReplica(
  platform: PlatformUnderTest,
  env: Record<string, string> = {},
): Promise<{ replica: PlatformProcess; url: string }> {
  const port = await freePort();
  const replica = new PlatformProcess(
    'gateway',
    resolve(__dirname, '../../dist/main.js'),
    { ...platform.env, ...env, PORT: String(port) },
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (!res.ok) throw new Error(String(res.status));
    },
  );
  await replica.start();
  return { replica, url: `http://127.0.0.1:${port}` };
}
