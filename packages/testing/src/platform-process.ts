import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { portOf, probeReady, processEnvironment, type ProcessSpec } from './platform-processes';

const REPO_ROOT = resolve(__dirname, '../../..');

/**
 * V8 flags of every platform process (the Dockerfile sets the same in NODE_OPTIONS). A larger
 * young generation: a renewal run allocates many short-lived rows and requests, and fewer
 * scavenges were measured at about 5% more renewals/s.
 */
export const PLATFORM_NODE_FLAGS = ['--max-semi-space-size=32'];

/**
 * How long `stop()` waits for the exit before SIGKILL: a service stops within 10 s
 * (runUntilSignalled of @billing/platform, docs/deployment.md "Stopping").
 */
const STOP_GRACE_MS = 10_000;

/** How a stopped process ended: its exit code (null when a signal ended it) and when. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From sending the signal to the exit. */
  afterMs: number;
}

export interface PlatformProcessOptions {
  /** `entry` is an executable of its own (nats-server, postgres), not a script for this Node.js. */
  executable?: boolean;
  /** Its arguments, after the entry point. */
  args?: string[];
  /**
   * The process writes its stdout and stderr there instead of to a pipe this process reads, so
   * that it outlives the process that started it (the tests' shared platform, the runner's
   * PostgreSQL). Without it, what it prints is kept in memory (`output`).
   */
  logFile?: string;
  /** Each line it prints, as it prints it (not with `logFile`): the runner shows them in the terminal. */
  onLine?: (line: string) => void;
  /** Each time it exits, asked to or not. */
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
  /** In a process group of its own: a terminal's Ctrl-C reaches only its parent, which stops it in order. */
  detached?: boolean;
  /** The OS user it runs as (PostgreSQL refuses to run as root). */
  user?: { uid: number; gid: number };
}

/**
 * A child process the platform supervises: one of the platform's own (`npm start`, the tests,
 * the chaos run, the benchmarks), or a server the runner brings (PostgreSQL, nats-server,
 * redis-server). `start()` resolves once `ready` does; it can be started again after it stopped.
 */
export class PlatformProcess {
  private child?: ChildProcess;
  private collected = '';

  /** `ready` resolves when the process answers (its health probe), and throws until then. */
  constructor(
    readonly name: string,
    readonly entry: string,
    readonly env: Record<string, string>,
    private readonly ready: () => Promise<void>,
    private readonly options: PlatformProcessOptions = {},
  ) {}

  /** A process of the platform: its built entry point, `env` with its own METRICS_PORT, ready when it answers its probe. */
  static of(spec: ProcessSpec, env: Record<string, string>, options?: PlatformProcessOptions): PlatformProcess {
    return new PlatformProcess(
      spec.name,
      resolve(REPO_ROOT, spec.entry),
      processEnvironment(spec, env),
      () => probeReady(spec, portOf(spec, env)),
      options,
    );
  }

  /** Where it writes its output, when not to a pipe (PlatformProcessOptions). */
  get logFile(): string | undefined {
    return this.options.logFile;
  }

  /** What the process has printed since its last start (the last 100 to 200 kB of it). */
  get output(): string {
    if (!this.logFile) return this.collected;
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && !hasExited(this.child);
  }

  /**
   * Starts the process and waits until it is ready; when it exits first or is not ready in
   * time, it is stopped and the error carries what it printed. PLATFORM_START_TIMEOUT_MS lets a
   * loaded machine (many suites at once) wait longer.
   */
  async start(timeoutMs = Number(process.env.PLATFORM_START_TIMEOUT_MS) || 30_000): Promise<void> {
    if (!this.options.executable && !existsSync(this.entry)) {
      throw new Error(`${this.entry} is missing: run \`npm run build\``);
    }
    this.collected = '';
    const child = this.spawn();
    let spawnError: Error | undefined;
    child.on('error', (err) => (spawnError ??= err));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (spawnError) throw new Error(`${this.name} did not start: ${spawnError.message}`);
      if (hasExited(child)) {
        throw new Error(`${this.name} exited with ${child.exitCode ?? child.signalCode} during start:\n${this.output}`);
      }
      try {
        await this.ready();
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          const output = this.output;
          await this.stop();
          const why = err instanceof Error ? err.message : String(err);
          throw new Error(`${this.name} not ready after ${timeoutMs} ms (${why}):\n${output}`);
        }
        await sleep(100);
      }
    }
  }

  /** Sends a signal (SIGSTOP/SIGCONT let tests freeze a service to provoke deadlines). */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /**
   * Sends `signal` and waits for the exit (SIGKILL after `graceMs`); answers how the process
   * ended, or undefined when it was not running.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = STOP_GRACE_MS): Promise<ProcessExit | undefined> {
    const child = this.child;
    if (!child || child.pid === undefined || hasExited(child)) return undefined;
    const sent = Date.now();
    const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    // A frozen process must run again to act on the signal.
    child.kill('SIGCONT');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const [code, exitSignal] = await exit;
    clearTimeout(timer);
    return { code, signal: exitSignal, afterMs: Date.now() - sent };
  }

  private spawn(): ChildProcess {
    const { args = [], executable, logFile, onLine, onExit, detached = false, user } = this.options;
    const profile = process.env.CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROFILE_DIR}`] : [];
    const [command, argv] = executable
      ? [this.entry, args]
      : [process.execPath, [...PLATFORM_NODE_FLAGS, ...profile, this.entry, ...args]];
    const log = logFile ? openSync(logFile, 'w') : undefined;
    const child = spawn(command, argv, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', log ?? 'pipe', log ?? 'pipe'],
      detached,
      ...user,
    });
    if (log !== undefined) closeSync(log);
    this.child = child;
    if (onExit) child.on('exit', onExit);
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      stream.on('data', (chunk: Buffer) => {
        this.collected += chunk.toString();
        if (this.collected.length > 200_000) this.collected = this.collected.slice(-100_000);
      });
      if (onLine) createInterface({ input: stream }).on('line', onLine);
    }
    return child;
  }
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}
