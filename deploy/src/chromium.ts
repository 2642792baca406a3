/**
 * The browser tests drive Debian's Chromium through playwright-core (playwright's own browser
 * downloads cannot reach their servers from these machines). `npm test` must pass on a new
 * machine as it comes, so before jest starts the runner makes sure Chromium is there: it
 * installs the Debian package itself when it can (root with apt-get), and otherwise stops
 * before the first test with the exact command to run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where the browser tests look when CHROMIUM_PATH is not set (gateway/test/*browser*). */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export const INSTALL_COMMAND = 'sudo apt-get update && sudo apt-get install -y chromium';

export type ChromiumOutcome = { ok: true; path: string; installed: boolean } | { ok: false; problem: string };

export interface ChromiumHost {
  env: NodeJS.ProcessEnv;
  isRoot: boolean;
  exists(path: string): boolean;
  /** Runs a command to its end with inherited output; true when it exited 0. */
  run(command: string, args: string[]): boolean;
}

export const thisMachine: ChromiumHost = {
  env: process.env,
  isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
  exists: existsSync,
  run(command, args) {
    const result = spawnSync(command, args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    return result.status === 0;
  },
};

function onPath(host: ChromiumHost, name: string): string | undefined {
  for (const dir of (host.env.PATH ?? '').split(delimiter)) {
    if (dir && host.exists(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * Finds Chromium (CHROMIUM_PATH, then the Debian path, then PATH) or installs the Debian package.
 * Never throws: a machine where it can't be had gets a problem naming the command to run.
 */
export function ensureChromium(host: ChromiumHost, log: (message: string) => void): ChromiumOutcome {
  const configured = host.env.CHROMIUM_PATH;
  if (configured) {
    if (host.exists(configured)) return { ok: true, path: configured, installed: false };
    return { ok: false, problem: `CHROMIUM_PATH=${configured} does not exist: fix it or unset it` };
  }
  const found = host.exists(DEFAULT_CHROMIUM) ? DEFAULT_CHROMIUM : onPath(host, 'chromium');
  if (found) return { ok: true, path: found, installed: false };

  const cannot = `The browser tests need Chromium, which is not installed. Run:\n  ${INSTALL_COMMAND}\nor set CHROMIUM_PATH to a Chromium binary, then run npm test again.`;
  if (!host.isRoot || !onPath(host, 'apt-get')) return { ok: false, problem: cannot };

  log('Chromium is missing: installing the Debian package (apt-get install chromium, about a minute)');
  const installed = host.run('apt-get', ['update', '-qq']) && host.run('apt-get', ['install', '-y', '-qq', 'chromium']);
  if (installed && host.exists(DEFAULT_CHROMIUM)) return { ok: true, path: DEFAULT_CHROMIUM, installed: true };
  return { ok: false, problem: `Installing Chromium with apt-get failed.\n${cannot}` };
}
