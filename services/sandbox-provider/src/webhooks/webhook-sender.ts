import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
/** Kept-alive connections to the merchant's endpoint (Paystack's own count is not published). */
const WEBHOOK_CONNECTIONS = 64;

/**
 * Posts Paystack-style webhooks to the merchant, off the request path: `send` returns at once
 * and the first attempt starts after the current response is written. A failed attempt is
 * retried a few times with growing waits, then logged and dropped; nothing here can crash the
 * process. In memory only: the sandbox promises what Paystack promises, namely that the
 * merchant can always verify a reference instead.
 *
 * Every successful charge sends one, so each costs little: node:http over kept-alive connections
 * rather than fetch, whose WHATWG layer (and AbortSignal.any per attempt) cost several times the
 * CPU of the request itself. Like Paystack, it does not follow redirects: a 3xx is a failure.
 */
export class WebhookSender {
  private readonly retryDelaysMs: number[];
  private readonly attemptTimeoutMs: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The requests of the attempts under way, destroyed by stop(). */
  private readonly requests = new Set<ClientRequest>();
  private readonly stopping = new AbortController();
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;

  constructor(private readonly options: WebhookSenderOptions) {
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    const https = options.url?.startsWith('https:') ?? false;
    // A bounded pool that is kept whole: a burst of charges answered together (a renewal batch at
    // a real provider's latency) would otherwise open a connection per webhook and close most of
    // them again, a TCP connect and teardown per charge on both sides. Beyond the pool, attempts
    // queue for a free connection, which their deadline covers.
    const pool = { keepAlive: true, maxSockets: WEBHOOK_CONNECTIONS, maxFreeSockets: WEBHOOK_CONNECTIONS };
    this.agent = https ? new HttpsAgent(pool) : new HttpAgent(pool);
    this.request = https ? httpsRequest : httpRequest;
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
    for (const request of this.requests) request.destroy();
    await Promise.allSettled([...this.inFlight]);
    this.agent.destroy();
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
      const status = await this.post(delivery);
      if (status >= 200 && status < 300) {
        this.options.logger.debug(log, 'webhook delivered');
        return;
      }
      failure = `HTTP ${status}`;
    } catch (err) {
      if (this.stopping.signal.aborted) return;
      failure = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    }
    const delayMs = this.retryDelaysMs[attempt - 1];
    if (delayMs === undefined || this.stopping.signal.aborted) {
      this.options.logger.error({ ...log, failure }, 'webhook not delivered; giving up');
      return;
    }
    this.options.logger.warn({ ...log, failure, retry_in_ms: delayMs }, 'webhook attempt failed; will retry');
    this.schedule(delivery, attempt + 1, delayMs);
  }

  /**
   * One POST; resolves with the status once the answer is read, rejects on a network failure, on
   * the deadline, or when stop() destroys it. Settles once: a connection closed with no answer
   * read rejects too, so no attempt is left hanging.
   */
  private post(delivery: Delivery): Promise<number> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = this.request(
        this.options.url!,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(delivery.body),
            [PAYSTACK_SIGNATURE_HEADER]: delivery.signature,
          },
        },
        (response) => {
          // Drain the body so the connection can be reused; its content does not matter.
          response.resume();
          response.on('end', () => {
            answered = true;
            resolve(response.statusCode ?? 0);
          });
          response.on('error', reject);
        },
      );
      this.requests.add(req);
      // The whole attempt, answer included, has attemptTimeoutMs (an idle-socket timeout would not bound it).
      const deadline = setTimeout(
        () => req.destroy(new Error(`no answer within ${this.attemptTimeoutMs} ms`)),
        this.attemptTimeoutMs,
      );
      req.on('error', reject);
      req.on('close', () => {
        clearTimeout(deadline);
        this.requests.delete(req);
        if (!answered) reject(new Error('connection closed before the answer'));
      });
      req.end(delivery.body);
    });
  }
}
