import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sleep, stopChild } from './infrastructure';

import { probeReady, type ProcessSpec } from '@billing/testing';

export {
  metricsPortOf,
  PLATFORM_PROCESSES,
  platformEnvironment,
  portOf,
  processEnvironment,
  type ProcessSpec,
} from '@billing/testing';

export async function waitUntilReady(
  spec: ProcessSpec,
  port: number,
  child: ChildProcess,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not answering yet';
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${spec.name} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    }
    try {
      await probeReady(spec, port);
      return;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) throw new Error(`${spec.name} not ready after ${timeoutMs / 1000} s (${last})`);
    await sleep(200);
  }
}

const COLOURS = [36, 35, 33, 32, 34, 31];

/** A running platform process whose output lines are prefixed with its name. */
export class ManagedProcess {
  readonly child: ChildProcess;

  constructor(
    readonly spec: ProcessSpec,
    repoRoot: string,
    env: Record<string, string | undefined>,
    index: number,
    nameWidth: number,
  ) {
    const entry = join(repoRoot, spec.entry);
    if (!existsSync(entry)) throw new Error(`${spec.entry} is missing: run \`npm run build\``);
    // detached: Ctrl-C in a terminal reaches only the runner, which stops the processes in
    // reverse dependency order (the gateway drains before the services it calls).
    this.child = spawn(process.execPath, [entry], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const tty = process.stdout.isTTY === true;
    const label = spec.name.padEnd(nameWidth);
    const prefix = tty ? `\x1b[${COLOURS[index % COLOURS.length]}m${label} |\x1b[0m ` : `${label} | `;
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        process.stdout.write(`${prefix}${tty ? humanise(line) : line}\n`);
      });
    }
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM (the services drain in-flight work), then SIGKILL after the grace period. */
  stop(graceMs = 20_000): Promise<void> {
    return stopChild(this.child, 'SIGTERM', graceMs);
  }
}

const LEVEL_COLOURS: Record<string, number> = { trace: 90, debug: 90, info: 32, warn: 33, error: 31, fatal: 31 };
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service.name']);

/** For a terminal: a pino JSON line as `12:00:00.000 INFO message {rest}`; anything else as is. */
function humanise(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (typeof entry.msg !== 'string' || typeof entry.level !== 'string') return line;
    const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
    const rest = Object.fromEntries(Object.entries(entry).filter(([k]) => !HIDDEN_FIELDS.has(k)));
    const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
    const level = `\x1b[${LEVEL_COLOURS[entry.level] ?? 0}m${entry.level.toUpperCase().padEnd(5)}\x1b[0m`;
    return `${time} ${level} ${entry.msg}${extra}`;
  } catch {
    return line;
  }
}
