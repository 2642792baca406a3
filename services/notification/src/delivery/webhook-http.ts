import { lookup } from 'node:dns';
import { setMaxListeners } from 'node:events';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isForbiddenAddress } from '../domain/webhook-url';

export interface PostOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Cut off by abandonAttempts (the process is stopping): not an attempt to record. */
  abandoned?: true;
}

export interface WebhookHttpOptions {
  timeoutMs: number;
  /** ALLOW_INSECURE_WEBHOOKS: no address check. */
  allowInsecure: boolean;
}

/** Only an excerpt of an error goes to the delivery log. */
const MAX_ERROR_LENGTH = 500;

/**
 * POSTs deliveries to merchants' endpoints. The SSRF guard runs where the connection is made:
 * the agent's DNS lookup drops forbidden addresses (so the address checked is the address
 * connected to, with no window for a DNS answer to change in between), and an IP-literal host,
 * which skips the lookup, is checked before the request. No redirects are followed; a 3xx is a
 * failed attempt. The whole attempt, answer included, has `timeoutMs`.
 */
export class WebhookHttp {
  private readonly agent: Agent;
  private readonly stopping = new AbortController();

  constructor(private readonly options: WebhookHttpOptions) {
    // Every attempt in flight listens for the stop (one listener each, removed when it ends), so
    // more than Node's default of 10 at once is the normal case, not a leak.
    setMaxListeners(0, this.stopping.signal);
    this.agent = new Agent({
      keepAliveTimeout: 10_000,
      connect: {
        timeout: options.timeoutMs,
        lookup: options.allowInsecure ? undefined : guardedLookup,
      },
    });
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<PostOutcome> {
    const started = process.hrtime.bigint();
    const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    // One controller and one timer of our own for the whole attempt, held until it ends: a
    // timeout signal combined by AbortSignal.any can be garbage-collected before it fires (a
    // known Node.js defect), and the attempt then hung past its lease, so another pass sent the
    // same attempt again (seen in CI: gateway/test/webhook-deliveries.test.ts, hanging receiver).
    const attempt = new AbortController();
    const timer = setTimeout(
      () => attempt.abort(new DOMException(`no answer within ${this.options.timeoutMs} ms`, 'TimeoutError')),
      this.options.timeoutMs,
    );
    const abandon = () => attempt.abort(new DOMException('the process is stopping', 'AbortError'));
    this.stopping.signal.addEventListener('abort', abandon, { once: true });
    try {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      if (!this.options.allowInsecure && isIP(host) && isForbiddenAddress(host)) {
        return { statusCode: null, durationMs: elapsed(), error: `forbidden address ${host}` };
      }
      if (this.stopping.signal.aborted) abandon();
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'user-agent': 'billing-platform-webhooks/1', ...headers },
        body,
        // One timer for the whole attempt, the signal: undici's own header and body timers
        // would race it, and a loaded process decided which error the log showed.
        headersTimeout: 0,
        bodyTimeout: 0,
        signal: attempt.signal,
      });
      // Drain the answer so the connection can be reused; its content does not matter.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return { statusCode: response.statusCode, durationMs: elapsed(), error: null };
    } catch (err) {
      if (this.stopping.signal.aborted)
        return { statusCode: null, durationMs: elapsed(), error: null, abandoned: true };
      const name = (err as Error).name;
      const message =
        name === 'TimeoutError' || name === 'AbortError'
          ? `no answer within ${this.options.timeoutMs} ms`
          : ((err as NodeJS.ErrnoException).code ?? (err as Error).message);
      return { statusCode: null, durationMs: elapsed(), error: String(message).slice(0, MAX_ERROR_LENGTH) };
    } finally {
      clearTimeout(timer);
      this.stopping.signal.removeEventListener('abort', abandon);
    }
  }

  /** Cuts off every attempt under way (a stopping process past its grace period). */
  abandonAttempts(): void {
    this.stopping.abort();
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/** dns.lookup that answers only public addresses, and fails when the host has none. */
function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const allowed = addresses.filter((a) => !isForbiddenAddress(a.address));
    if (allowed.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves only to forbidden addresses`), {
        code: 'EFORBIDDENADDRESS',
      });
      return callback(refused, []);
    }
    const wantsAll = (options as { all?: boolean }).all;
    if (wantsAll) return callback(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
}
