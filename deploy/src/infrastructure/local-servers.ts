import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// The modules alone, not the package's index, which reads the infrastructure's addresses when
// it loads (see runLanes in runner.ts).
import { PlatformProcess } from '@billing/testing/dist/platform-process';
import { freePort } from '@billing/testing/dist/ports';
import { processIsAlive } from '@billing/platform/lifecycle';
import { STATE_DIR } from './state-directories';

/** A server from a Debian package's binary, which the runner and the chaos run start themselves. */
export interface LocalServer {
  binary: 'nats-server' | 'redis-server';
  scheme: 'nats' | 'redis';
  /** Listening on 127.0.0.1:`port`, keeping whatever it keeps in `dataDir`. */
  args(port: number, dataDir: string): string[];
  /** Resolves when the server answers at the URL; throws why not. */
  probe(url: string): Promise<void>;
  /** What it keeps in `dataDir`, as the runner's summary says it. */
  keeps(dataDir: string): string;
}

/** How long a local server may take to answer after it starts. */
export const LOCAL_SERVER_START_TIMEOUT_MS = 20_000;

/** A server the runner started, or found running where it would have started one. */
export interface StartedServer {
  url: string;
  /** Where it listens and what it keeps, for the runner's summary. */
  description: string;
  /** Stops it when this runner started it; a server it found running is not its to stop. */
  stop(): Promise<void>;
}

/** The server's process on `port`, ready when it answers at `url`. */
export function localServerProcess(
  server: LocalServer,
  port: number,
  dataDir: string,
  options: { detached?: boolean; logFile?: string } = {},
): { process: PlatformProcess; url: string } {
  const binary = findBinary(server.binary);
  if (!binary) throw new Error(`${server.binary} is not installed (apt-get install ${server.binary})`);
  const url = `${server.scheme}://127.0.0.1:${port}`;
  const serverProcess = new PlatformProcess(server.binary, binary, {}, () => server.probe(url), {
    executable: true,
    args: server.args(port, dataDir),
    ...options,
  });
  return { process: serverProcess, url };
}

/**
 * The runner's own server when none answers where the platform looks: one this runner started
 * earlier and left running is reused (its pid and port in STATE_DIR); otherwise one starts on
 * a free port, detached (Ctrl-C reaches the runner first, which stops it after the services),
 * its output in STATE_DIR/<binary>.log.
 */
export async function startLocalServer(
  server: LocalServer,
  dataDir: string,
  log: (message: string) => void,
): Promise<StartedServer> {
  mkdirSync(STATE_DIR, { recursive: true, mode: 0o700 });
  const stateFile = join(STATE_DIR, `${server.scheme}.json`);
  const previous = readJson<{ pid: number; port: number }>(stateFile);
  if (previous && processIsAlive(previous.pid)) {
    const url = `${server.scheme}://127.0.0.1:${previous.port}`;
    const answers = await server.probe(url).then(
      () => true,
      () => false,
    );
    if (answers) {
      return {
        url,
        description: `reused running server (pid ${previous.pid}) on port ${previous.port}`,
        stop: async () => undefined,
      };
    }
  }
  const logFile = join(STATE_DIR, `${server.binary}.log`);
  const port = await freePort();
  const { process: serverProcess, url } = localServerProcess(server, port, dataDir, { detached: true, logFile });
  log(`starting ${serverProcess.entry} ${server.args(port, dataDir).join(' ')}`);
  await serverProcess.start(LOCAL_SERVER_START_TIMEOUT_MS);
  writeFileSync(stateFile, JSON.stringify({ pid: serverProcess.pid, port }));
  return {
    url,
    description: `local ${server.binary}, port ${port}, ${server.keeps(dataDir)}, log ${logFile}`,
    stop: async () => {
      log(`stopping local ${server.binary}`);
      await serverProcess.stop();
      rmSync(stateFile, { force: true });
    },
  };
}

/** Debian installs nats-server in /usr/sbin and redis-server in /usr/bin, not on every user's PATH. */
function findBinary(name: string): string | undefined {
  const dirs = [
    ...(process.env.PATH ?? '').split(':').filter(Boolean),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/bin',
  ];
  return dirs.map((dir) => join(dir, name)).find((candidate) => existsSync(candidate));
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
