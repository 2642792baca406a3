import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * On a new machine `npm test` installs Chromium beside the build and the first suites instead of
 * before them (deploy/bootstrap.js): the runner writes the install's outcome to the file named
 * by CHROMIUM_READY_FILE, and a browser suite waits for that file before it launches Chromium.
 */
export type ChromiumReadiness = { ok: true } | { ok: false; problem: string };

export function announceChromium(path: string, readiness: ChromiumReadiness): void {
  writeFileSync(path, JSON.stringify(readiness));
}

export function forgetChromiumAnnouncement(path: string): void {
  rmSync(path, { force: true });
}

/** An apt-get install of Chromium takes a minute or two; a browser suite waits up to five. */
const CHROMIUM_INSTALL_TIMEOUT_MS = 300_000;

/** Resolves once Chromium is installed (at once when no install is under way); throws when it failed. */
export async function chromiumInstalled(path = process.env.CHROMIUM_READY_FILE): Promise<void> {
  if (!path) return;
  const deadline = Date.now() + CHROMIUM_INSTALL_TIMEOUT_MS;
  while (!existsSync(path)) {
    if (Date.now() > deadline)
      throw new Error(`Chromium's install was not done after ${CHROMIUM_INSTALL_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const readiness = JSON.parse(readFileSync(path, 'utf8')) as ChromiumReadiness;
  if (!readiness.ok) throw new Error(readiness.problem);
}
