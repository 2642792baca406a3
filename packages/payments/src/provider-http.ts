import { PaymentProviderError } from './payment-provider';

export interface ProviderHttpOptions {
  baseUrl: string;
  secretKey: string;
  /** Per request; a provider that does not answer in time is treated like a 5xx (retryable). */
  timeoutMs?: number;
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 15_000;

/**
 * One authenticated JSON request to a Paystack-protocol server. Every failure becomes a
 * PaymentProviderError: transport problems, timeouts and 5xx are retryable (the caller's
 * idempotent reference makes a retry safe); 4xx are not and carry the provider's `message`.
 * The secret goes only into the Authorization header, never into a message.
 */
export class ProviderHttp {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: ProviderHttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  }

  /** Resolves with the parsed JSON body of a 2xx answer. */
  async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const response = await this.send(method, path, body);
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw this.error(`Payment provider's answer to ${method} ${path} was cut off`, response.status, true);
    }
    const json = parseJson(text);
    if (response.ok) {
      // A 2xx we cannot read leaves the outcome unknown: retryable, the reference settles it.
      if (json === undefined) {
        throw this.error(`Payment provider answered ${method} ${path} with invalid JSON`, response.status, true);
      }
      return json;
    }
    const providerMessage = messageOf(json);
    if (response.status >= 500) {
      const detail = providerMessage ? `: ${providerMessage}` : '';
      throw this.error(`Payment provider failed (HTTP ${response.status})${detail}`, response.status, true);
    }
    throw this.error(
      providerMessage ?? `Payment provider refused the request (HTTP ${response.status})`,
      response.status,
      false,
    );
  }

  private async send(method: string, path: string, body: unknown): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.options.secretKey}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw this.error(`Payment provider did not answer ${method} ${path} within ${this.timeoutMs} ms`, null, true);
      }
      // fetch hides the reason (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (err as Error).message;
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
