import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * What every `npm test` run measures (docs/decisions.md, "How the suite is laid out"): each
 * suite's wall time and each platform start's, written under test-results/ and read back by the
 * lane sequencer through the committed copy, suite-timings.json.
 */
export const REPO_ROOT = resolve(__dirname, '../../../..');

/** Where a run writes what it measured (TEST_RESULTS_DIR, test-results/ by default). */
export const resultsDirectory = (): string => process.env.TEST_RESULTS_DIR || join(REPO_ROOT, 'test-results');

/** The committed timings that order and balance the suites; refreshed from a run's figures. */
export const COMMITTED_TIMINGS = join(REPO_ROOT, 'packages', 'testing', 'suite-timings.json');

/** One suite's outcome in one run. */
export interface SuiteTiming {
  /** Relative to the repository root, with forward slashes. */
  suite: string;
  seconds: number;
  tests: number;
  failed: number;
  lane?: string;
  /** Each test's own time, slowest first (what to look at when a suite grows). */
  slowestTests?: { name: string; seconds: number }[];
  /**
   * CPU the jest process spent on the suite (its test code, module loading and transforms; not
   * the platform processes it drives), when jest runs suites in its own process as the lanes do.
   */
  jestCpuSeconds?: number;
}

/** One platform started by a test (startPlatform) or for a lane (the shared platform). */
export interface PlatformStartTiming {
  suite: string;
  seconds: number;
  processes: number;
  shared: boolean;
}

export const suiteName = (path: string): string => relative(REPO_ROOT, path).split('\\').join('/');

/** The suite running in this process now, as jest's expect knows it (none outside jest). */
export function currentSuite(): string {
  const expectGlobal = (globalThis as { expect?: { getState?: () => { testPath?: string } } }).expect;
  const path = expectGlobal?.getState?.().testPath;
  return path ? suiteName(path) : '(outside jest)';
}

/** Appends a platform start to this run's record (one line per start, any process may write). */
export function recordPlatformStart(start: PlatformStartTiming): void {
  const dir = resultsDirectory();
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `platform-starts-${process.pid}.jsonl`), `${JSON.stringify(start)}\n`);
}

/** Every platform start recorded in the results directory. */
export function readPlatformStarts(dir = resultsDirectory()): PlatformStartTiming[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith('platform-starts-') && name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as PlatformStartTiming),
    );
}

/** A lane's suites, as its reporter wrote them (suite-timings-<lane>.json). */
export function writeLaneTimings(lane: string, suites: SuiteTiming[], dir = resultsDirectory()): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `suite-timings-${lane}.json`), `${JSON.stringify(suites, null, 2)}\n`);
}

export function readRunTimings(dir = resultsDirectory()): SuiteTiming[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith('suite-timings-') && name.endsWith('.json'))
    .flatMap((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as SuiteTiming[]);
}

/** Removes the previous run's timings (suites and platform starts). */
export function clearRunTimings(dir = resultsDirectory()): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (/^(platform-starts-.*\.jsonl|suite-timings-.*\.json)$/.test(name)) rmSync(join(dir, name), { force: true });
  }
}

/** Suite -> seconds from the committed file; empty when there is none yet. */
export function committedTimings(path = COMMITTED_TIMINGS): Record<string, number> {
  if (!existsSync(path)) return {};
  return (JSON.parse(readFileSync(path, 'utf8')) as { suites: Record<string, number> }).suites;
}

/** The committed file's content for a run's figures: suites by name, seconds to one decimal. */
export function timingsFileContent(suites: SuiteTiming[]): string {
  const sorted = [...suites].sort((a, b) => a.suite.localeCompare(b.suite));
  const entries = Object.fromEntries(sorted.map((s) => [s.suite, Math.round(s.seconds * 10) / 10]));
  return `${JSON.stringify({ suites: entries }, null, 2)}\n`;
}

/** The summary printed at the end of a run: the slowest suites and what platform starts cost. */
export function runSummary(suites: SuiteTiming[], starts: PlatformStartTiming[], count = 10): string[] {
  const slowest = [...suites].sort((a, b) => b.seconds - a.seconds).slice(0, count);
  const width = Math.max(0, ...slowest.map((s) => s.suite.length));
  const lines = [`${slowest.length} slowest suites:`];
  for (const s of slowest) {
    lines.push(
      `  ${s.suite.padEnd(width)}  ${s.seconds.toFixed(1).padStart(6)} s${s.lane ? `  (lane ${s.lane})` : ''}`,
    );
  }
  const own = starts.filter((s) => !s.shared);
  const shared = starts.filter((s) => s.shared);
  const total = (list: PlatformStartTiming[]) => list.reduce((sum, s) => sum + s.seconds, 0).toFixed(1);
  lines.push(
    `platform starts: ${own.length} for single suites (${total(own)} s), ${shared.length} shared (${total(shared)} s)`,
  );
  const tests = suites.reduce((sum, s) => sum + s.tests, 0);
  const failed = suites.reduce((sum, s) => sum + s.failed, 0);
  lines.push(`${suites.length} suites, ${tests} tests, ${failed} failed`);
  return lines;
}
