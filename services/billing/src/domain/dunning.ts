const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Dunning (docs/api-behaviour.md §8): a failed invoice is retried the configured days after its FIRST failed
 * charge (1, 3, 5 by default). After a failure at `failedAt`, the next retry is the first
 * scheduled time after it; null when the schedule is used up (dunning exhausted).
 */
export function nextDunningAttempt(firstFailedAt: Date, failedAt: Date, retryDays: number[]): Date | null {
  for (const days of [...retryDays].sort((a, b) => a - b)) {
    const at = new Date(firstFailedAt.getTime() + days * DAY_MS);
    if (at.getTime() > failedAt.getTime()) return at;
  }
  return null;
}
