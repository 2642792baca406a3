import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { payCheckoutPageInSandbox } from '@billing/testing';

/** What the load saw: every answer by status, and the refused connections of a dead gateway. */
export class RequestTally {
  readonly byStatus = new Map<string, number>();
  total = 0;
  /** Checkout payments a kill interrupted between the payer's steps (the payer would retry). */
  interruptedCheckouts = 0;
  /** 4xx answers by status, request (ids replaced by :id) and detail, so a run explains its refusals. */
  readonly refusals = new Map<string, number>();

  record(status: number | string): void {
    this.total += 1;
    this.byStatus.set(String(status), (this.byStatus.get(String(status)) ?? 0) + 1);
  }

  recordRefusal(status: number, method: string, path: string, body: unknown): void {
    const route = path
      .replace(/\?.*$/, '')
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')
      .replace(/(checkout\/sessions\/)[0-9A-Za-z]{8,16}/, '$1:code');
    const detail = (body as { detail?: unknown } | undefined)?.detail;
    const key = `${status} ${method} ${route}${typeof detail === 'string' ? ` "${detail}"` : ''}`;
    this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
  }

  /** 5xx answers other than 503 (a failover may answer 503, never 500/502/504). */
  unexpected(): [string, number][] {
    return [...this.byStatus].filter(([status]) => /^5\d\d$/.test(status) && status !== '503');
  }
}

interface Answer {
  status: number;
  // The fields the load reads back from the API's JSON.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * A merchant's HTTP client over every gateway replica, as a load balancer would spread it: a
 * refused connection (a killed gateway) goes to the next replica, a 503 or 429 is retried after
 * its Retry-After. POSTs carry an Idempotency-Key, so a retry never does the work twice.
 */
export class GatewayClient {
  private next = 0;

  constructor(
    private readonly gateways: string[],
    readonly tally: RequestTally,
  ) {}

  get anyGateway(): string {
    return this.gateways[this.next++ % this.gateways.length];
  }

  async call(
    method: string,
    path: string,
    options: { apiKey?: string; token?: string; body?: unknown } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (method === 'POST') headers['idempotency-key'] = randomUUID();
    for (let attempt = 1; ; attempt++) {
      const gateway = this.anyGateway;
      let status: number | string;
      try {
        const res = await fetch(`${gateway}${path}`, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        this.tally.record(res.status);
        if (res.status >= 400 && res.status < 500 && res.status !== 429) {
          this.tally.recordRefusal(res.status, method, path, text ? JSON.parse(text) : undefined);
        }
        const later = res.status === 503 || res.status === 429;
        if (!later || attempt >= 10) return { status: res.status, body: text ? JSON.parse(text) : undefined };
        status = res.status;
      } catch (err) {
        status = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        this.tally.record(status);
        if (attempt >= 10) throw err;
      }
      await sleep(typeof status === 'number' ? 1_000 : 100);
    }
  }
}

/** One merchant of the load: a test-mode project with a plan, a webhook to the receiver, subscribers. */
export class LoadMerchant {
  private apiKey = '';
  private token = '';
  private planId = '';
  /** The plans subscriptions move between (same interval, and another one), and back. */
  private otherPlanIds: string[] = [];
  private readonly subscriptions: string[] = [];
  private clockAdvancedAt = Date.now();

  constructor(
    private readonly client: GatewayClient,
    private readonly label: string,
    private readonly receiverUrl: string,
    private readonly clockEveryMs: number,
  ) {}

  async setUp(): Promise<void> {
    const email = `${this.label}-${randomUUID().slice(0, 8)}@example.com`;
    const registered = await this.expect(201, 'POST', '/api/v1/auth/register', {
      body: { email, business_name: `${this.label} Ltd`, password: `pw-${randomUUID()}` },
    });
    this.apiKey = registered.api_keys[0].key;
    this.token = registered.access_token;
    await this.expect(201, 'POST', '/api/v1/webhooks', { body: { url: `${this.receiverUrl}/hooks`, events: ['*'] } });
    const plan = await this.expect(201, 'POST', '/api/v1/plans', {
      body: { name: 'Metered', amount: 100, interval: 'monthly', usage_unit_amount: 2 },
    });
    this.planId = plan.id;
    // Plan changes both ways (proration credit and charges), a coupon on half the checkouts and
    // a refunding cancel policy: the money paths whose credit and refunds must come from payments.
    for (const body of [
      { name: 'Big', amount: 300, interval: 'monthly', usage_unit_amount: 2 },
      { name: 'Yearly', amount: 1000, interval: 'annually', usage_unit_amount: 2 },
    ]) {
      this.otherPlanIds.push((await this.expect(201, 'POST', '/api/v1/plans', { body })).id);
    }
    await this.expect(201, 'POST', '/api/v1/coupons', {
      body: { code: 'HALFOFF', percent_off: 50, duration: 'FOREVER' },
    });
    await this.expect(201, 'POST', '/api/v1/cancellation-policies', {
      body: { name: 'Full', refund_type: 'FULL', is_default: true },
    });
  }

  /** One step of the mix: mostly checkouts and usage, some reads, cancellations and renewals. */
  async step(): Promise<void> {
    if (Date.now() - this.clockAdvancedAt > this.clockEveryMs) {
      this.clockAdvancedAt = Date.now();
      return this.renewAll();
    }
    const roll = Math.random();
    if (roll < 0.35 || this.subscriptions.length === 0) return this.checkout();
    if (roll < 0.6) return this.recordUsage();
    if (roll < 0.72) return this.changePlan();
    if (roll < 0.8) return this.cancelOne();
    await this.call('GET', '/api/v1/invoices?limit=20');
  }

  /** A payer pays the hosted checkout page in the sandbox: a customer, a subscription, a paid invoice. */
  private async checkout(): Promise<void> {
    const coupon = Math.random() < 0.5 ? { coupon_code: 'HALFOFF' } : {};
    const session = await this.call('POST', '/api/v1/checkout/sessions', { body: { plan_id: this.planId, ...coupon } });
    if (session.status !== 201) return;
    try {
      await payCheckoutPageInSandbox(this.client.anyGateway, session.body.code, `payer-${randomUUID()}@example.com`);
    } catch {
      this.client.tally.interruptedCheckouts += 1;
      return;
    }
    const completed = await this.call('GET', `/api/v1/checkout/sessions/${session.body.code}`);
    if (completed.body?.subscription_id) this.subscriptions.push(completed.body.subscription_id);
  }

  private async recordUsage(): Promise<void> {
    const id = this.pick();
    await this.call('POST', `/api/v1/subscriptions/${id}/usage`, {
      body: { quantity: 3, idempotency_key: randomUUID() },
    });
  }

  /** An immediate change to another plan, the base one included: upgrades, downgrades, other intervals. */
  private async changePlan(): Promise<void> {
    const plans = [this.planId, ...this.otherPlanIds];
    await this.call('POST', `/api/v1/subscriptions/${this.pick()}/change-plan`, {
      body: { plan_id: plans[Math.floor(Math.random() * plans.length)] },
    });
  }

  private async cancelOne(): Promise<void> {
    const id = this.subscriptions.splice(Math.floor(Math.random() * this.subscriptions.length), 1)[0];
    await this.call('POST', `/api/v1/subscriptions/${id}/cancel`, { body: {} });
  }

  /** The project's test clock a month on: every subscription renews, its saved card is charged. */
  private async renewAll(): Promise<void> {
    const clock = await this.call('GET', '/api/v1/test-clock');
    if (clock.status !== 200) return;
    const to = new Date(Date.parse(clock.body.now) + 32 * 86_400_000).toISOString();
    await this.call('POST', '/api/v1/test-clock/advance', { body: { to } });
  }

  private pick(): string {
    return this.subscriptions[Math.floor(Math.random() * this.subscriptions.length)];
  }

  private call(method: string, path: string, options: { body?: unknown } = {}): Promise<Answer> {
    // Managing webhooks takes the access token besides the key (docs/api-behaviour.md).
    // Webhooks and cancellation policies take the merchant's token as well as the key.
    const token = /^\/api\/v1\/(webhooks|cancellation-policies)/.test(path) ? this.token : undefined;
    return this.client.call(method, path, { ...options, apiKey: this.apiKey, token });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private async expect(status: number, method: string, path: string, options: { body?: unknown }): Promise<any> {
    const answer = await this.call(method, path, options);
    if (answer.status !== status) {
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    return answer.body;
  }
}
