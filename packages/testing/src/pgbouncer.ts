import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PlatformProcess } from './platform-process';
import { freePort } from './ports';

/** Debian's pgbouncer (docs/deployment.md, "PostgreSQL connections"). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

/** The uid and gid of `nobody`: pgbouncer refuses to run as root. */
const NOBODY = { uid: 65534, gid: 65534 };

/**
 * Makes sure Debian's pgbouncer is installed: installs the package when it is missing and this
 * process may (root with apt-get), as the runner does for Chromium (deploy/src/chromium.ts);
 * otherwise throws with the command to run.
 */
export function ensurePgbouncer(): string {
  if (existsSync(PGBOUNCER)) return PGBOUNCER;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const command = 'sudo apt-get update && sudo apt-get install -y pgbouncer';
  if (!isRoot) throw new Error(`These tests need Debian's pgbouncer, which is not installed. Run:\n  ${command}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args: string[]) => spawnSync('apt-get', args, { stdio: 'inherit', env }).status === 0;
  // The package's index may be missing or stale on a new machine: update once, then install.
  if (
    !run(['install', '-y', '-qq', 'pgbouncer']) &&
    !(run(['update', '-qq']) && run(['install', '-y', '-qq', 'pgbouncer']))
  )
    throw new Error(`Installing pgbouncer with apt-get failed. Run:\n  ${command}`);
  if (!existsSync(PGBOUNCER)) throw new Error(`apt-get installed pgbouncer, but ${PGBOUNCER} is not there`);
  return PGBOUNCER;
}

export interface RunningPgbouncer {
  /** postgres://… of the pooler; databases named in it pass to the server's of the same name. */
  url: string;
  port: number;
  /** Runs a command of pgbouncer's admin console (SHOW POOLS, SHOW CONFIG); its rows. */
  admin(command: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

/**
 * A private pgbouncer on a free port in front of the PostgreSQL at `upstream` (host:port), in
 * `poolMode`, with `poolSize` server connections per database and user, trusting every client
 * (tests only). Its ini lives in a temporary folder removed by stop().
 */
export async function startPgbouncer(options: {
  upstream: { host: string; port: number; user: string };
  poolMode: 'session' | 'transaction';
  poolSize: number;
}): Promise<RunningPgbouncer> {
  const executable = ensurePgbouncer();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  // pgbouncer runs as nobody, who reads these.
  chmodSync(dir, 0o755);
  const ini = join(dir, 'pgbouncer.ini');
  const users = join(dir, 'users.txt');
  writeFileSync(users, `"${options.upstream.user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${options.upstream.host} port=${options.upstream.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      `admin_users = ${options.upstream.user}`,
      `pool_mode = ${options.poolMode}`,
      `default_pool_size = ${options.poolSize}`,
      'max_client_conn = 500',
      // node-postgres sends none of these; a driver that sends one is not refused.
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const url = `postgres://${options.upstream.user}@127.0.0.1:${port}/postgres`;
  const admin = async (command: string) => {
    const client = new Client({ connectionString: `postgres://${options.upstream.user}@127.0.0.1:${port}/pgbouncer` });
    await client.connect();
    try {
      // Without parameters, pg uses the simple query protocol, the only one the console speaks.
      return (await client.query<Record<string, unknown>>(command)).rows;
    } finally {
      await client.end();
    }
  };
  const process_ = new PlatformProcess(
    'pgbouncer',
    executable,
    {},
    async () => {
      await admin('SHOW VERSION');
    },
    { executable: true, args: [ini], user: NOBODY },
  );
  try {
    await process_.start(15_000);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    port,
    admin,
    async stop() {
      await process_.stop('SIGINT', 5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
