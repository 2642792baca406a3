import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
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

/**
 * The rules axe's automated check (WCAG 2.1 A and AA) finds broken on the page as it is now: id,
 * impact and the elements; empty when it passes.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}
