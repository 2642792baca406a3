import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { chromiumInstalled } from '@billing/testing';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Debian's Chromium, headless. The background-networking flags matter on machines without
 * internet: without them Chromium keeps opening connections that the closed network refuses.
 */
export async function launchChromium(): Promise<Browser> {
  // On a new machine `npm test` installs Chromium while the first suites run.
  await chromiumInstalled();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A folder under test-artifacts/ (git-ignored) for a test's screenshots. */
export function artifactsFolder(name: string): string {
  const folder = resolve(__dirname, '../../../test-artifacts', name);
  mkdirSync(folder, { recursive: true });
  return folder;
}
