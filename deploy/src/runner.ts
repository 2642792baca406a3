/**
 * The local runner behind `npm start`, `npm test` and `npm run bench` (called by
 * deploy/bootstrap.js after install and build). It makes sure PostgreSQL, NATS JetStream and
 * Redis are there, starting embedded/local ones when not (infrastructure/), then:
 *   start  starts every platform process in dependency order and supervises them;
 *   test   runs jest against that infrastructure;
 *   bench  runs deploy/dist/bench/<name>.bench.js (all of them when no name is given);
 *   chaos  runs deploy/dist/chaos/chaos.js (docs/chaos.md), which brings its own NATS and Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
// The modules of @billing/testing alone, not its index, which reads the infrastructure's
// addresses when it loads: runLanes loads it once they are in this process's environment.
import {
  clearRunTimings,
  readPlatformStarts,
  readRunTimings,
  resultsDirectory,
  runSummary,
} from '@billing/testing/dist/jest/suite-timings';
import { announceChromium, forgetChromiumAnnouncement } from '@billing/testing/dist/chromium-ready';
import { PlatformProcess } from '@billing/testing/dist/platform-process';
import {
  metricsPortOf,
  PLATFORM_PROCESSES,
  platformEnvironment,
  portOf,
} from '@billing/testing/dist/platform-processes';
import { portIsFree } from '@billing/testing/dist/ports';
import { DEFAULT_CHROMIUM, ensureChromium, INSTALL_COMMAND, thisMachine } from './chromium';
import { developmentSecret, developmentTls } from './development-credentials';
import { ensureInfrastructure, InfrastructureError, type Infrastructure } from './infrastructure/ensure-infrastructure';
import { terminalLinePrinter } from './terminal-line-printer';

const REPO_ROOT = resolve(__dirname, '../..');
const BENCH_DIR = join(__dirname, 'bench');
const CHAOS_RUN = join(__dirname, 'chaos', 'chaos.js');

export type Mode = 'start' | 'test' | 'bench' | 'chaos';

const log = (message: string) => process.stdout.write(`[runner] ${message}\n`);
const fail = (message: string) => process.stderr.write(`[runner] ${message}\n`);

export interface RunnerOptions {
  /**
   * An apt-get install of Chromium that the bootstrap started for the whole suite, still under
   * way: the lanes start without it, and the browser suites wait for its outcome.
   */
  chromiumInstall?: Promise<number>;
}

/** Runs a mode to its end and returns the process exit code. */
export async function main(mode: Mode, args: string[], options: RunnerOptions = {}): Promise<number> {
  if (mode === 'bench') {
    const problem = unknownBenchmarks(args);
    if (problem) {
      fail(problem);
      return 64;
    }
  }
  const signals = new SignalTrap();
  try {
    // `npm start` runs without Redis when none can be had (one gateway limits in memory).
    const infra = await provideInfrastructure(mode !== 'start');
    if (!infra) return 1;
    try {
      // Ctrl-C while PostgreSQL/NATS were starting: the user wants nothing more.
      if (signals.received) return 0;
      if (mode === 'start') return await superviseThePlatform(infra, signals);
      if (mode === 'test') return await runJest(infra, args, signals, options.chromiumInstall);
      if (mode === 'chaos') return await runChild(process.execPath, [CHAOS_RUN, ...args], infraEnv(infra), signals);
      return await runBenchmarks(infra, args, signals);
    } finally {
      await infra.stop();
    }
  } finally {
    signals.dispose();
  }
}

async function provideInfrastructure(redisRequired: boolean): Promise<Infrastructure | undefined> {
  try {
    const infra = await ensureInfrastructure(process.env, log, redisRequired);
    for (const line of infra.summary) log(line);
    return infra;
  } catch (err) {
    if (!(err instanceof InfrastructureError)) throw err;
    fail(`cannot start: required infrastructure is missing.\n${err.message}`);
    return undefined;
  }
}

/**
 * Collects SIGINT/SIGTERM/SIGHUP for the whole run. `npm start` forwards the terminal's Ctrl-C
 * to us while the terminal also sends it, so a second signal within two seconds is the same
 * request; a later one means "stop waiting".
 */
class SignalTrap {
  private first?: number;
  private listeners: ((signal: NodeJS.Signals, forced: boolean) => void)[] = [];
  private readonly handler = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (this.first === undefined) this.first = now;
    else if (now - this.first < 2000) return;
    const forced = now !== this.first;
    for (const listener of this.listeners) listener(signal, forced);
  };

  constructor() {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, this.handler);
  }

  get received(): boolean {
    return this.first !== undefined;
  }

  on(listener: (signal: NodeJS.Signals, forced: boolean) => void): void {
    this.listeners.push(listener);
  }

  dispose(): void {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeListener(s, this.handler);
  }
}

/** `npm start`: every process of the platform started in dependency order, supervised until a signal. */
async function superviseThePlatform(infra: Infrastructure, signals: SignalTrap): Promise<number> {
  const env: Record<string, string> = {
    ...infrastructureVariables(infra),
    NODE_ENV: process.env.NODE_ENV || 'development',
    ...platformEnvironment(process.env),
  };
  // Every process gets this process's environment besides `env` (PlatformProcess).
  for (const [variable, file] of [
    ['JWT_SECRET', 'dev-jwt-secret'],
    ['DOCUMENT_LINKS_KEY', 'dev-document-links-key'],
    ['PORTAL_LINKS_KEY', 'dev-portal-links-key'],
  ] as const) {
    if (process.env[variable]) continue;
    const generated = developmentSecret(REPO_ROOT, file);
    env[variable] = generated.secret;
    log(
      `${variable} is not set: using a ${generated.created ? 'newly generated' : 'previously generated'} development secret ` +
        `(${generated.path}); set ${variable} for anything but local development`,
    );
  }

  const tlsFor = await developmentTls(REPO_ROOT, process.env, log);

  for (const spec of PLATFORM_PROCESSES) {
    for (const [variable, port] of [
      [spec.portVariable, portOf(spec, env)],
      [spec.metrics.portVariable, metricsPortOf(spec, env)],
    ] as const) {
      if (!(await portIsFree(port))) {
        fail(`port ${port} (${variable}, ${spec.name}) is already in use: stop what uses it or set ${variable}`);
        return 1;
      }
    }
  }

  const started: PlatformProcess[] = [];
  let stopping: Promise<number> | undefined;
  const stopAll = (code: number, reason: string): Promise<number> => {
    if (stopping) return stopping;
    log(reason);
    stopping = (async () => {
      for (const p of [...started].reverse()) {
        if (p.running) log(`stopping ${p.name}`);
        await p.stop();
      }
      log('all processes stopped');
      return code;
    })();
    return stopping;
  };
  // If the runner itself dies unexpectedly, do not leave detached children behind.
  const killOnExit = () => started.forEach((p) => p.signal('SIGKILL'));
  process.on('exit', killOnExit);

  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  signals.on((signal, forced) => {
    if (forced) {
      fail(`${signal} again: killing every process now`);
      killOnExit();
      return;
    }
    void stopAll(0, `${signal} received: shutting down`).then(resolveDone);
  });

  const nameWidth = Math.max(...PLATFORM_PROCESSES.map((s) => s.name.length));
  try {
    for (const [index, spec] of PLATFORM_PROCESSES.entries()) {
      if (stopping) break;
      log(`starting ${spec.name} (${spec.entry}, port ${portOf(spec, env)})`);
      const platformProcess = PlatformProcess.of(
        spec,
        { ...env, ...tlsFor(spec.name) },
        {
          // detached: Ctrl-C in a terminal reaches only the runner, which stops the processes in
          // reverse dependency order (the gateway drains before the services it calls).
          detached: true,
          onLine: terminalLinePrinter(spec.name, index, nameWidth),
          onExit: (code, signal) => {
            if (stopping) return;
            void stopAll(1, `${spec.name} exited unexpectedly (${code ?? signal}): stopping everything`).then(
              resolveDone,
            );
          },
        },
      );
      started.push(platformProcess);
      await platformProcess.start(60_000);
      log(`${spec.name} is ready`);
    }
  } catch (err) {
    if (!stopping)
      void stopAll(1, `start failed: ${err instanceof Error ? err.message : String(err)}`).then(resolveDone);
  }
  if (!stopping) {
    const gateway = PLATFORM_PROCESSES.find((s) => s.name === 'gateway');
    const port = gateway ? portOf(gateway, env) : 8080;
    process.stdout.write(`\nGateway ready at http://localhost:${port}/api/v1 (docs: /docs)\nPress Ctrl-C to stop.\n\n`);
  }
  const code = await done;
  process.removeListener('exit', killOnExit);
  return code;
}

async function runJest(
  infra: Infrastructure,
  args: string[],
  signals: SignalTrap,
  chromiumInstall?: Promise<number>,
): Promise<number> {
  const jest = join(REPO_ROOT, 'node_modules', '.bin', 'jest');
  if (!existsSync(jest)) {
    fail(`${jest} is missing: run npm install`);
    return 1;
  }
  const env = infraEnv(infra);
  if (chromiumInstall) {
    // Installing beside the first suites: the browser suites wait for this file's outcome.
    const readyFile = join(resultsDirectory(), 'chromium-ready.json');
    forgetChromiumAnnouncement(readyFile);
    env.CHROMIUM_PATH = DEFAULT_CHROMIUM;
    env.CHROMIUM_READY_FILE = readyFile;
    void chromiumInstall.then((code) => {
      const ok = code === 0 && existsSync(DEFAULT_CHROMIUM);
      log(ok ? 'Chromium installed' : `installing Chromium failed (exit ${code})`);
      announceChromium(
        readyFile,
        ok
          ? { ok: true }
          : {
              ok: false,
              problem: `Installing Chromium with apt-get failed (exit ${code}). Run:\n  ${INSTALL_COMMAND}`,
            },
      );
    });
  } else if (runsBrowserTests(args)) {
    const chromium = ensureChromium(thisMachine, log);
    if (!chromium.ok) {
      fail(chromium.problem);
      return 1;
    }
    env.CHROMIUM_PATH = chromium.path;
  }
  if (args.length === 0) return runLanes(jest, env, signals);
  log(`jest ${args.join(' ')}`.trim());
  return runChild(jest, args, env, signals);
}

/**
 * The whole suite: TEST_LANES jest processes at once (two by default, one per core), each
 * running its share of the suites one after another (`--shard`, split by the lane sequencer:
 * the timing-critical suites all in lane 1). Their lines are prefixed with the lane; at the end
 * the slowest suites of all and the test count.
 */
async function runLanes(jest: string, env: NodeJS.ProcessEnv, signals: SignalTrap): Promise<number> {
  const lanes = Number(process.env.TEST_LANES) || 2;
  clearRunTimings();
  // One shared platform for every lane: one start and one set of idle loops for the run.
  const sharedDir = join(resultsDirectory(), 'run-shared-platform');
  rmSync(sharedDir, { recursive: true, force: true });
  mkdirSync(sharedDir, { recursive: true });
  // @billing/testing reads the infrastructure's addresses from this process's environment when
  // it loads (and `npm start` need not load it at all).
  for (const name of ['DATABASE_URL', 'NATS_URL', 'REDIS_URL'] as const) if (env[name]) process.env[name] = env[name];
  const { dropDatabasesInBackground, runSharedPlatformPath, startRunSharedPlatform, stopSharedPlatform } =
    await import('@billing/testing');
  // Beside the lanes, whose first suites start their own platforms: a borrower waits for it.
  log('starting the shared platform beside the lanes');
  const sharedStart = startRunSharedPlatform(sharedDir);
  sharedStart.catch((err: Error) => fail(`the shared platform did not start: ${err.message}`));
  const shared = runSharedPlatformPath(sharedDir);
  log(`jest in ${lanes} lanes (docs/decisions.md, "How the suite is laid out")`);
  let codes: number[];
  try {
    codes = await Promise.all(
      Array.from({ length: lanes }, (_, i) => {
        const lane = String(i + 1);
        const args = lanes > 1 ? [`--shard=${lane}/${lanes}`] : [];
        const laneEnv = { ...env, TEST_LANE: lane, TEST_LANES: String(lanes), RUN_SHARED_PLATFORM: shared };
        return runChild(jest, args, laneEnv, signals, `[lane ${lane}] `);
      }),
    );
  } finally {
    const record = await sharedStart.catch(() => undefined);
    if (record) {
      await stopSharedPlatform(record);
      dropDatabasesInBackground([record.runId]);
    }
  }
  for (const line of runSummary(readRunTimings(), readPlatformStarts())) log(line);
  const failed = codes.find((code) => code !== 0);
  if (failed !== undefined) fail(`lane ${codes.indexOf(failed) + 1} failed (exit ${failed})`);
  return failed ?? 0;
}

/** Browser tests are named *browser*.test.ts; a run of named files without one needs no Chromium. */
export function runsBrowserTests(args: string[]): boolean {
  const files = args.filter((a) => !a.startsWith('-'));
  if (files.length === 0 || files.length !== args.length) return true;
  return !files.every((f) => isFile(resolve(REPO_ROOT, f)) && !/browser/.test(f));
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** Built benchmarks: deploy/dist/bench/<name>.bench.js. */
function availableBenchmarks(): string[] {
  if (!existsSync(BENCH_DIR)) return [];
  return readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith('.bench.js'))
    .map((f) => f.slice(0, -'.bench.js'.length))
    .sort();
}

function unknownBenchmarks(names: string[]): string | undefined {
  const available = availableBenchmarks();
  const unknown = names.filter((n) => !available.includes(n));
  if (available.length === 0) return 'no benchmarks are built (deploy/dist/bench is empty)';
  if (unknown.length > 0) return `unknown benchmark ${unknown.join(', ')}; available: ${available.join(', ')}`;
  return undefined;
}

async function runBenchmarks(infra: Infrastructure, names: string[], signals: SignalTrap): Promise<number> {
  const wanted = names.length > 0 ? names : availableBenchmarks();
  let result = 0;
  for (const name of wanted) {
    if (signals.received) break;
    log(`benchmark ${name}`);
    const code = await runChild(process.execPath, [join(BENCH_DIR, `${name}.bench.js`)], infraEnv(infra), signals);
    if (code !== 0) {
      fail(`benchmark ${name} failed (exit ${code})`);
      result = result || code;
    }
  }
  return result;
}

/** Where the platform finds its infrastructure. */
function infrastructureVariables(infra: Infrastructure): Record<string, string> {
  return {
    DATABASE_URL: infra.databaseUrl,
    NATS_URL: infra.natsUrl,
    ...(infra.redisUrl ? { REDIS_URL: infra.redisUrl } : {}),
  };
}

function infraEnv(infra: Infrastructure): NodeJS.ProcessEnv {
  return { ...process.env, ...infrastructureVariables(infra) };
}

/**
 * Runs a foreground child (jest, a benchmark) in our process group, so the terminal's Ctrl-C
 * reaches it as it would without the runner; a SIGTERM sent only to us is passed on. With
 * `linePrefix`, each line it prints is prefixed (lanes running side by side).
 */
async function runChild(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signals: SignalTrap,
  linePrefix?: string,
): Promise<number> {
  const child: ChildProcess = spawn(command, args, {
    cwd: REPO_ROOT,
    env,
    stdio: linePrefix === undefined ? 'inherit' : ['inherit', 'pipe', 'pipe'],
  });
  if (linePrefix !== undefined) {
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      if (from) createInterface({ input: from }).on('line', (line) => to.write(`${linePrefix}${line}\n`));
    }
  }
  signals.on((signal, forced) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(forced ? 'SIGKILL' : signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
  });
  const exited = new Promise<number>((resolveCode, reject) => {
    child.once('error', reject);
    // 'close': after the exit and the last of its output (read line by line in lanes).
    child.once('close', (code, signal) =>
      resolveCode(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1)),
    );
  });
  return exited;
}

if (require.main === module) {
  const [first, ...rest] = process.argv.slice(2);
  const modes: Record<string, Mode> = { '--test': 'test', '--bench': 'bench', '--chaos': 'chaos' };
  const mode: Mode = modes[first] ?? 'start';
  const args = mode === 'start' ? process.argv.slice(2) : rest;
  main(mode, args).then(
    (code) => process.exit(code),
    (err: unknown) => {
      fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exit(1);
    },
  );
}
