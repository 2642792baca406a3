/**
 * How many provider calls to keep in flight, by Little's law: calls in flight = rate x time each
 * call takes. A renewal run that must reach `targetPerSecond` charges against a provider that
 * answers in `latencyMs` needs targetPerSecond x latencyMs / 1000 calls open at once; fewer caps
 * the rate below the target whatever the CPU could do (128 calls at 500 ms: 256/s at most).
 *
 * HEADROOM covers what the mean latency leaves out: the provider's jitter, the moments a slot
 * waits for the next batch's claims, and the time each call spends in our own process around
 * the provider's. The result is clamped to [MIN_CALLS_IN_FLIGHT, max], max
 * being the process's budget and its kept-alive connections (PROVIDER_CALLS_IN_FLIGHT).
 * docs/configuration.md describes the settings.
 */
export const CALLS_IN_FLIGHT_HEADROOM = 1.2;
export const MIN_CALLS_IN_FLIGHT = 16;

export function callsInFlightFor(targetPerSecond: number, latencyMs: number, max: number): number {
  const needed = Math.ceil((targetPerSecond * Math.max(0, latencyMs) * CALLS_IN_FLIGHT_HEADROOM) / 1000);
  return Math.max(Math.min(MIN_CALLS_IN_FLIGHT, max), Math.min(max, needed));
}

/**
 * The provider's latency as this process sees it: the time from sending a call to its answer's
 * headers, averaged over the first hundred calls and then exponentially weighted (about the last
 * hundred), so that the calls in flight follow a provider that slows down or speeds up, and the
 * first call's connection setup weighs no more than any other. Until the first answer it is the
 * configured expectation (PROVIDER_LATENCY_MS).
 */
export class ObservedLatency {
  private static readonly WEIGHT = 0.01;
  private averageMs = 0;
  private samples = 0;

  constructor(private readonly expectedMs: number) {}

  record(ms: number): void {
    this.samples += 1;
    this.averageMs += (ms - this.averageMs) * Math.max(ObservedLatency.WEIGHT, 1 / this.samples);
  }

  /** The average of the answers so far, or the configured expectation before any. */
  get ms(): number {
    return this.samples === 0 ? this.expectedMs : this.averageMs;
  }
}
