import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { PlatformUnderTest } from '@billing/testing';

/** Linux's USER_HZ: /proc reports CPU time in these ticks on every x86_64 and arm64 kernel. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) of one process so far; 0 once it has gone. */
function processSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Every process whose command name is `comm` (PostgreSQL's backends, nats-server, redis-server). */
function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

/**
 * CPU seconds (user + system) so far of a process and every process below it (a browser it
 * launched, with that browser's renderers): what work done through child processes costs, apart
 * from whatever else the machine runs. A descendant that exited is no longer counted.
 */
export function processTreeSeconds(root: number): number {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const below = (pid: number): boolean => {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = parentOf.get(at)) {
      if (at === root) return true;
    }
    return false;
  };
  return [...parentOf.keys()].filter(below).reduce((total, pid) => total + processSeconds(pid), 0);
}

/** Busy CPU seconds of the whole machine so far (every core, from /proc/stat; idle and iowait left out). */
function machineBusySeconds(): number {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const [user, nice, system, , , irq, softirq, steal] = cpu.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

export interface CpuUse {
  wallSeconds: number;
  /** CPU seconds over the window by what used them, largest first. */
  byWhat: { what: string; seconds: number }[];
  /** Every core's busy time over the window, whoever used it. */
  machineSeconds: number;
  cores: number;
}

/**
 * Where the CPU went over a window of a benchmark: each process of the platform, PostgreSQL (all
 * its processes), NATS, Redis and the benchmark process itself, read from /proc. It tells what a
 * figure costs, so a ratio can be weighed against what the machine has.
 */
export class CpuMeter {
  private readonly started: Map<string, Map<number, number>>;
  private readonly startedAt = performance.now();
  private readonly machineAt = machineBusySeconds();

  constructor(private readonly platform: PlatformUnderTest) {
    this.started = this.read();
  }

  /** CPU seconds so far of each process (by pid) of each thing measured. */
  private read(): Map<string, Map<number, number>> {
    const seconds = new Map<string, Map<number, number>>();
    for (const [name, replicas] of Object.entries(this.platform.replicas)) {
      const pids = replicas.flatMap((replica) => (replica.pid ? [replica.pid] : []));
      if (pids.length > 0) seconds.set(name, new Map(pids.map((pid) => [pid, processSeconds(pid)])));
    }
    for (const [what, comm] of [
      ['postgresql', 'postgres'],
      ['nats-server', 'nats-server'],
      ['redis', 'redis-server'],
    ] as const) {
      seconds.set(what, new Map(pidsNamed(comm).map((pid) => [pid, processSeconds(pid)])));
    }
    const own = process.cpuUsage();
    seconds.set('benchmark process', new Map([[process.pid, (own.user + own.system) / 1e6]]));
    return seconds;
  }

  /** The CPU used since the meter started; a PostgreSQL backend that exited meanwhile is not counted. */
  stop(): CpuUse {
    const now = this.read();
    const byWhat = [...now].map(([what, pids]) => {
      const before = this.started.get(what) ?? new Map<number, number>();
      let total = 0;
      for (const [pid, seconds] of pids) total += seconds - (before.get(pid) ?? 0);
      return { what, seconds: total };
    });
    byWhat.sort((a, b) => b.seconds - a.seconds);
    return {
      wallSeconds: (performance.now() - this.startedAt) / 1000,
      byWhat,
      machineSeconds: machineBusySeconds() - this.machineAt,
      cores: availableParallelism(),
    };
  }
}

/**
 * CPU milliseconds per unit of work (a renewal, a charge) by what used them, one column per
 * window, with the machine's busy time and its busy cores below.
 */
export function cpuPerUnitRows(windows: { label: string; use: CpuUse; units: number }[]): string[][] {
  const whats = [...new Set(windows.flatMap((w) => w.use.byWhat.map((b) => b.what)))];
  const perUnit = (seconds: number, units: number) => ((seconds * 1000) / units).toFixed(3);
  return [
    ['CPU ms per unit', ...windows.map((w) => w.label)],
    ...whats.map((what) => [
      what,
      ...windows.map((w) => perUnit(w.use.byWhat.find((b) => b.what === what)?.seconds ?? 0, w.units)),
    ]),
    ['every process above', ...windows.map((w) => perUnit(sum(w.use.byWhat.map((b) => b.seconds)), w.units))],
    ['the machine (every core, busy)', ...windows.map((w) => perUnit(w.use.machineSeconds, w.units))],
    [
      `cores busy (of ${windows[0].use.cores})`,
      ...windows.map((w) => (w.use.machineSeconds / w.use.wallSeconds).toFixed(2)),
    ],
  ];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The JSON line's form of a window: CPU ms per unit by what used them, and the machine's. */
export function cpuMsPerUnit(use: CpuUse, units: number): { by_what: Record<string, number>; machine: number } {
  const ms = (seconds: number) => Math.round(((seconds * 1000) / units) * 1000) / 1000;
  return {
    by_what: Object.fromEntries(use.byWhat.map((b) => [b.what, ms(b.seconds)])),
    machine: ms(use.machineSeconds),
  };
}
