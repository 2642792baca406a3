import { PLATFORM_PROCESSES, metricsPortOf, type ServiceName } from './platform-processes';
import type { SharedPlatform } from './shared-platform';

/** One sample of the Prometheus text exposition format: a series and its value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Parses the Prometheus text exposition format (version 0.0.4, what prom-client writes):
 * `# HELP`/`# TYPE` lines and blank lines are skipped, every other line is
 * `name{label="value",...} value [timestamp]`, label values with \\, \" and \n escaped.
 */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a metrics sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL)) {
      labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** What one process's GET /metrics answered, with sums over the series that match some labels. */
export class MetricsScrape {
  constructor(readonly samples: MetricSample[]) {}

  /** The series of `name` whose labels include `labels`. */
  series(name: string, labels: Record<string, string> = {}): MetricSample[] {
    return this.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
    );
  }

  /** The sum of those series (0 when there is none: a counter not yet incremented). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.series(name, labels).reduce((total, s) => total + s.value, 0);
  }
}

/** Scrapes GET /metrics of one process of a platform under test (its own METRICS_PORT). */
export async function scrapeMetrics(
  platform: Pick<SharedPlatform, 'env'>,
  service: ServiceName,
): Promise<MetricsScrape> {
  const spec = PLATFORM_PROCESSES.find((p) => p.name === service)!;
  const res = await fetch(`http://127.0.0.1:${metricsPortOf(spec, platform.env)}/metrics`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`${service} GET /metrics answered ${res.status}`);
  if (!res.headers.get('content-type')?.startsWith('text/plain')) {
    throw new Error(`${service} GET /metrics answered ${res.headers.get('content-type')}`);
  }
  return new MetricsScrape(parseMetrics(await res.text()));
}

/**
 * Waits until a polling loop of a process has finished `count` more passes than when called
 * (polling_loop_passes_total): "another sweep or two found nothing to do" as an event.
 */
export async function waitForLoopPasses(
  platform: Pick<SharedPlatform, 'env'>,
  service: ServiceName,
  loop: string,
  count: number,
  timeoutMs = 30_000,
): Promise<void> {
  const passes = async () => (await scrapeMetrics(platform, service)).sum('polling_loop_passes_total', { loop });
  const target = (await passes()) + count;
  const deadline = Date.now() + timeoutMs;
  for (let now = await passes(); now < target; now = await passes()) {
    if (Date.now() > deadline) throw new Error(`${service}'s ${loop} loop made ${now} of ${target} passes`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
