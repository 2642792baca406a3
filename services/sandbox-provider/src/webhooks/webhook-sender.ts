import { PAYSTACK_SIGNATURE_HEADER, signPaystackWebhook } from '@billing/payments';
import type { Logger } from '@billing/platform';

export interface WebhookSenderOptions {
  /** Unset: the sandbox runs without a merchant endpoint and sends nothing. */
  url?: string;
  /** Signs each body as Paystack does, with the secret key. */
  secret: string;
  logger: Logger;
  /** Waits before the 2nd, 3rd, ... attempt. */
  retryDelaysMs?: number[];
  attemptTimeoutMs?: number;
}

interface Delivery {
  event: string;
  reference: unknown;
  body: string;
  signature: string;
}

const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 25_000];

/**
 * Posts Paystack-style webhooks to the merchant, off the request path: `send` returns at once
 * and the first attempt starts after the current response is written. A failed attempt is
 * retried a few times with growing waits, then logged and dropped; nothing here can crash the
 * process. In memory only: the sandbox promises what Paystack promises, namely that the
 * merchant can always verify a reference instead.
 */
export class WebhookSender {
  private readonly retryDelaysMs: number[];
  private readonly attemptTimeoutMs: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: WebhookSenderOptions) {
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  }

  send(event: string, data: { reference?: unknown }): void {
    if (!this.options.url || this.stopping.signal.aborted) return;
    // Serialized once: the signature covers exactly the bytes every attempt sends.
    const body = JSON.stringify({ event, data });
    this.schedule(
      { event, reference: data.reference, body, signature: signPaystackWebhook(body, this.options.secret) },
      1,
      0,
    );
  }

  /** Stops retrying, cancels attempts under way and waits for them to settle. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timers.size > 0)
      this.options.logger.warn({ pending: this.timers.size }, 'webhook retries dropped at shutdown');
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(delivery: Delivery, attempt: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const running = this.attempt(delivery, attempt).finally(() => this.inFlight.delete(running));
      this.inFlight.add(running);
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(delivery: Delivery, attempt: number): Promise<void> {
    const log = { event: delivery.event, reference: delivery.reference, attempt };
    let failure: string;
    try {
      const response = await fetch(this.options.url!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [PAYSTACK_SIGNATURE_HEADER]: delivery.signature },
        body: delivery.body,
        signal: AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.attemptTimeoutMs)]),
      });
      // Drain the body so the connection can be reused; its content does not matter.
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) {
        this.options.logger.debug(log, 'webhook delivered');
        return;
      }
      failure = `HTTP ${response.status}`;
    } catch (err) {
      if (this.stopping.signal.aborted) return;
      const cause = (err as { cause?: { code?: string } }).cause;
      failure = cause?.code ?? (err as Error).message;
    }
    const delayMs = this.retryDelaysMs[attempt - 1];
    if (delayMs === undefined || this.stopping.signal.aborted) {
      this.options.logger.error({ ...log, failure }, 'webhook not delivered; giving up');
      return;
    }
    this.options.logger.warn({ ...log, failure, retry_in_ms: delayMs }, 'webhook attempt failed; will retry');
    this.schedule(delivery, attempt + 1, delayMs);
  }
}
