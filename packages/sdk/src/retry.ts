import { IDEMPOTENCY_KEY_HEADER } from './idempotency';

export type Fetch = (request: Request) => Promise<Response>;

export interface RetryPolicy {
  /** Further attempts after the first. */
  maxRetries: number;
  /** Waits `ms`; a test may pass its own clock. */
  sleep?: (ms: number) => Promise<void>;
}

/** First backoff step, doubled on every retry up to BACKOFF_CAP_MS when the answer names no wait. */
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 8_000;
/** A longer Retry-After is handed back to the caller (the error carries the answer): waiting that long is its call. */
const MAX_RETRY_AFTER_MS = 60_000;

/** Methods the server treats as safe to repeat by themselves (docs/idempotency.md, "Which requests"). */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether running the request twice does no more than running it once: a repeatable method, or a
 * POST carrying an Idempotency-Key (the server replays or finds the first attempt's outcome).
 */
const isRepeatable = (request: Request): boolean =>
  REPEATABLE_METHODS.has(request.method) || request.headers.has(IDEMPOTENCY_KEY_HEADER);

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After in seconds, or as an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Exponential backoff with jitter: between half and all of the step, so callers retrying together spread out. */
function backoffMs(retry: number): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  return step / 2 + Math.random() * (step / 2);
}

/**
 * The wait before retrying `response`, or undefined when it must not be retried. A 429 was refused
 * before anything ran, so it is always retried; a 503 only when repeating the request is safe.
 */
function retryDelay(response: Response, repeatable: boolean, retry: number): number | undefined {
  if (response.status !== 429 && !(response.status === 503 && repeatable)) return undefined;
  const named = retryAfterMs(response);
  if (named === undefined) return backoffMs(retry);
  return named <= MAX_RETRY_AFTER_MS ? named : undefined;
}

/**
 * Wraps `fetch` so that 429 and 503 answers, and network failures, are retried up to
 * `maxRetries` times: honouring Retry-After, else with backoff. Only repeatable requests are
 * retried after a 503 or a network failure (the first attempt may have taken effect); every retry
 * sends the same request again, Idempotency-Key included.
 */
export function retryingFetch(fetch: Fetch, { maxRetries, sleep = sleepFor }: RetryPolicy): Fetch {
  return async (request) => {
    const repeatable = isRepeatable(request);
    for (let retry = 0; ; retry++) {
      const lastAttempt = retry >= maxRetries;
      // The original stays unread, so every attempt can send the same body.
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (err) {
        // A caller's abort is an answer, not a failure to retry.
        if (lastAttempt || !repeatable || request.signal.aborted) throw err;
        await sleep(backoffMs(retry));
        continue;
      }
      const delay = lastAttempt ? undefined : retryDelay(response, repeatable, retry);
      if (delay === undefined) return response;
      // Frees the connection; not awaited, as a teed body (a caller's clone) only settles once every branch is read.
      response.body?.cancel().catch(() => undefined);
      await sleep(delay);
    }
  };
}
