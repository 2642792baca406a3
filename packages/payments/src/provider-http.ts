import { Pool } from 'undici';
import { ObservedLatency } from './calls-in-flight';
import { PaymentProviderError } from './payment-provider';

export interface ProviderHttpOptions {
  baseUrl: string;
  secretKey: string;
  /**
   * Per request; a provider that does not answer in time is treated like a 5xx (retryable).
   * Checked about twice a second, so meant in seconds, not milliseconds.
   */
  timeoutMs?: number;
  /** Kept-alive connections to the provider (PROVIDER_CALLS_IN_FLIGHT); 128 by default. */
  connections?: number;
  /** The latency expected before any call was answered (PROVIDER_LATENCY_MS); 0 by default. */
  expectedLatencyMs?: number;
  /** The provider's name on its metrics (`sandbox`, `paystack`); `paystack` by default. */
  metricsName?: string;
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 15_000;

/**
 * One authenticated JSON request to a Paystack-protocol server. Every failure becomes a
 * PaymentProviderError: transport problems, timeouts and 5xx are retryable (the caller's
 * idempotent reference makes a retry safe); 4xx are not and carry the provider's `message`.
 * The secret goes only into the Authorization header, never into a message.
 */
export class ProviderHttp {
  /** The base URL's path ("" for https://api.paystack.co), put before every request path. */
  private readonly basePath: string;
  private readonly timeoutMs: number;
  /**
   * Kept-alive connections to the provider, shared by every call: a renewal run sends thousands
   * of charges, and undici's request API costs far less per call than fetch.
   */
  private readonly pool: Pool;
  /** How long the provider takes to answer, as measured on this process's calls. */
  readonly latency: ObservedLatency;

  constructor(private readonly options: ProviderHttpOptions) {
    const base = new URL(options.baseUrl);
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
    this.latency = new ObservedLatency(options.expectedLatencyMs ?? 0);
    this.pool = new Pool(base.origin, {
      connections: options.connections ?? 128,
      keepAliveTimeout: 10_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connectTimeout: this.timeoutMs,
    });
  }

  /** Closes the kept-alive connections (at shutdown). */
  close(): Promise<void> {
    return this.pool.close();
  }

  /** Resolves with the parsed JSON body of a 2xx answer. */
  async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const response = await this.send(method, path, body);
    let text: string;
    try {
      text = await response.body.text();
    } catch {
      throw this.error(`Payment provider's answer to ${method} ${path} was cut off`, response.statusCode, true);
    }
    const json = parseJson(text);
    if (response.statusCode >= 200 && response.statusCode < 300) {
      // A 2xx we cannot read leaves the outcome unknown: retryable, the reference settles it.
      if (json === undefined) {
        throw this.error(`Payment provider answered ${method} ${path} with invalid JSON`, response.statusCode, true);
      }
      return json;
    }
    const providerMessage = messageOf(json);
    if (response.statusCode >= 500) {
      const detail = providerMessage ? `: ${providerMessage}` : '';
      throw this.error(`Payment provider failed (HTTP ${response.statusCode})${detail}`, response.statusCode, true);
    }
    throw this.error(
      providerMessage ?? `Payment provider refused the request (HTTP ${response.statusCode})`,
      response.statusCode,
      false,
    );
  }

  private async send(method: 'GET' | 'POST', path: string, body: unknown) {
    const sent = performance.now();
    try {
      const response = await this.pool.request({
        method,
        path: `${this.basePath}${path}`,
        headers: {
          authorization: `Bearer ${this.options.secretKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      this.latency.record(performance.now() - sent);
      return response;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
        throw this.error(`Payment provider did not answer ${method} ${path} within ${this.timeoutMs} ms`, null, true);
      }
      const reason = code ?? (err as Error).message;
      throw this.error(`Payment provider unreachable for ${method} ${path}: ${reason}`, null, true);
    }
  }

  private error(message: string, httpStatus: number | null, retryable: boolean): PaymentProviderError {
    return new PaymentProviderError(this.redact(message), httpStatus, retryable);
  }

  /** Defence in depth: whatever a server echoes back, the secret never leaves in an error. */
  private redact(message: string): string {
    return this.options.secretKey ? message.split(this.options.secretKey).join('[redacted]') : message;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function messageOf(json: unknown): string | undefined {
  const message = (json as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message.trim() !== '' ? message : undefined;
}
