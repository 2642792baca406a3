/** How readWhenSettled decides that a read model has caught up. */
export interface SettleOptions<T> {
  /** What of an answer counts: by default all of it (leave out what moves by itself, e.g. `as_of`). */
  key?: (value: T) => unknown;
  /** Answers as soon as this holds (the figures a test expects), without waiting for the quiet period. */
  done?: (value: T) => boolean;
  /** How long the answer must stay the same to count as settled. */
  quietMs?: number;
  /** Never waits longer than this: the last answer is returned then, for the test to assert on. */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Reads a read model that follows the event stream (the analytics figures, docs/api-behaviour.md
 * §25) until it has caught up: until `done` holds, or until what `key` picks of the answer has not
 * changed for `quietMs`, or `timeoutMs` has passed. Returns the last answer either way, so that a
 * test asserts on it and a disagreement shows as a diff rather than as a timeout.
 */
export async function readWhenSettled<T>(read: () => Promise<T>, options: SettleOptions<T> = {}): Promise<T> {
  const { key = (value: T) => value, done, quietMs = 5000, timeoutMs = 30_000, intervalMs = 200 } = options;
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  let seen = JSON.stringify(key(value));
  let since = Date.now();
  for (;;) {
    if (done?.(value) || Date.now() - since >= quietMs || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    value = await read();
    const now = JSON.stringify(key(value));
    if (now !== seen) {
      seen = now;
      since = Date.now();
    }
  }
}
