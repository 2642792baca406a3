import { readWhenSettled, sharedPlatform, type SharedPlatform } from '@billing/testing';
import {
  createdBody,
  gatewayApi,
  ISO_UTC,
  registerMerchant,
  type Api,
  type Json,
  type RegisteredMerchant,
} from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';

const MRR_FIELDS = [
  'month',
  'mrr',
  'new',
  'expansion',
  'contraction',
  'churned',
  'reactivation',
  'active_subscriptions',
];
const REVENUE_FIELDS = ['month', 'gross', 'refunds', 'net', 'tax'];
const SUMMARY_FIELDS = [
  'mrr',
  'arr',
  'active_subscriptions',
  'trialing_subscriptions',
  'past_due_subscriptions',
  'customers',
  'arpu',
  'subscriber_churn_rate_30d',
  'net_revenue_30d',
  'as_of',
].sort();

const ROUTES = ['/analytics/mrr', '/analytics/revenue', '/analytics/summary'];
const SERIES = ['/analytics/mrr', '/analytics/revenue'];

/** `YYYY-MM` of an instant, UTC. */
const monthOf = (iso: string) => iso.slice(0, 7);

/** The `count` months ending with `last` (YYYY-MM), oldest first. */
function monthsEndingWith(last: string, count: number): string[] {
  const [year, month] = last.split('-').map(Number);
  const end = year * 12 + month - 1;
  return Array.from({ length: count }, (_, i) => {
    const index = end - count + 1 + i;
    return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
  });
}

/**
 * The analytics routes (docs/api-behaviour.md §25) through the gateway, every process real:
 * billing's events carry the facts, the analytics service keeps the read model, the gateway
 * checks the query and answers JSON or CSV. Each merchant is a project of its own, with its own
 * test clock.
 */
describe('analytics routes (gateway -> analytics read model)', () => {
  let platform: SharedPlatform;
  let api: Api;
  /** A test-mode NGN subscription of 10,000 and a USD one of 40, a live-mode NGN one of 2,500. */
  let seller: RegisteredMerchant;
  /** Another project: nothing of the seller's may show in its figures. */
  let other: RegisteredMerchant;
  let testMonth: string;

  const get = (apiKey: string | undefined, path: string, headers: Record<string, string> = {}) =>
    api('GET', `/api/v1${path}`, { apiKey, headers });

  const summaryOf = (apiKey: string, currency = 'NGN') => get(apiKey, `/analytics/summary?currency=${currency}`);

  /** The summary once the read model has caught up with what `done` expects (bounded). */
  const settledSummary = async (apiKey: string, done: (summary: Json) => boolean, currency = 'NGN') =>
    readWhenSettled(async () => (await summaryOf(apiKey, currency)).body, {
      key: ({ as_of: _asOf, ...figures }: Json) => figures,
      done,
      timeoutMs: 20_000,
    });

  async function subscribe(apiKey: string, amount: number, currency: string, label: string) {
    const plan = await createdBody(api('POST', '/api/v1/plans', { apiKey, body: { name: label, amount, currency } }));
    return payHostedCheckout(api, platform.gatewayUrl, apiKey, plan.id, label);
  }

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [seller, other] = await Promise.all([registerMerchant(api, 'analytics'), registerMerchant(api, 'analytics-other')]);
    await subscribe(seller.testKey, 10_000, 'NGN', 'pro');
    await subscribe(seller.testKey, 40, 'USD', 'dollar');
    await subscribe(seller.liveKey, 2_500, 'NGN', 'live');
    testMonth = monthOf((await get(seller.testKey, '/test-clock')).body.now);
  }, 120_000);
  afterAll(() => platform?.stop());

  it('answers 401 without an API key, whatever the query', async () => {
    for (const path of ROUTES) {
      const res = await get(undefined, `${path}?from=2026-13`);
      expect([path, res.status, res.body]).toEqual([
        path,
        401,
        { detail: 'Not authenticated: send the X-Api-Key header' },
      ]);
    }
  });

  it('refuses a month not written YYYY-MM, from after to and more than 36 months: 400 {detail}', async () => {
    const refusals: [string, RegExp][] = [
      ['from=2026-13&to=2027-01', /^"2026-13" is not a month written YYYY-MM$/],
      ['from=2026-00&to=2026-03', /^"2026-00" is not a month written YYYY-MM$/],
      ['from=2026-1&to=2026-03', /^"2026-1" is not a month written YYYY-MM$/],
      ['from=26-01&to=2026-03', /^"26-01" is not a month written YYYY-MM$/],
      ['from=2026-01&to=2026-03-01', /^"2026-03-01" is not a month written YYYY-MM$/],
      ['from=&to=2026-03', /^"" is not a month written YYYY-MM$/],
      ['from=2026-07&to=2026-03', /^from 2026-07 is after to 2026-03$/],
      ['from=2023-01&to=2026-01', /^37 months is more than 36$/],
      // Without `to`, the range ends with the test clock's month: a `from` after it is refused.
      ['from=2099-01', /^from 2099-01 is after to \d{4}-\d{2}$/],
    ];
    for (const path of SERIES) {
      for (const [query, detail] of refusals) {
        const res = await get(seller.testKey, `${path}?${query}`);
        expect([path, query, res.status, Object.keys(res.body ?? {})]).toEqual([path, query, 400, ['detail']]);
        expect(res.body.detail).toMatch(detail);
      }
    }
    // The longest range is 36 months, both ends included.
    const longest = await get(seller.testKey, '/analytics/mrr?from=2024-01&to=2026-12');
    expect(longest.status).toBe(200);
    expect(longest.body.map((m: Json) => m.month)).toEqual(monthsEndingWith('2026-12', 36));
  });

  it('takes the currency case-insensitively; one the platform does not bill in is a 422 naming it', async () => {
    for (const path of ROUTES) {
      const res = await get(seller.testKey, `${path}?currency=EUR`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'currency'], input: 'EUR' })]);
    }
    const dollars = await settledSummary(seller.testKey, (s) => s.mrr === 40, 'usd');
    expect(dollars).toMatchObject({ mrr: 40, arr: 480, active_subscriptions: 1, customers: 1, arpu: 40 });
  });

  it('summarises the key’s project, mode and currency: every field, money in major units', async () => {
    const summary = await settledSummary(seller.testKey, (s) => s.mrr === 10_000 && s.net_revenue_30d === 10_000);
    expect(Object.keys(summary).sort()).toEqual(SUMMARY_FIELDS);
    expect(summary).toEqual({
      mrr: 10_000,
      arr: 120_000,
      active_subscriptions: 1,
      trialing_subscriptions: 0,
      past_due_subscriptions: 0,
      customers: 1,
      arpu: 10_000,
      subscriber_churn_rate_30d: 0,
      net_revenue_30d: 10_000,
      as_of: expect.stringMatching(ISO_UTC),
    });
    // As of the project's test clock.
    const clock = Date.parse((await get(seller.testKey, '/test-clock')).body.now);
    expect(Math.abs(Date.parse(summary.as_of) - clock)).toBeLessThan(60_000);
  });

  it('keeps test mode and live mode apart: each key sees its own mode’s figures', async () => {
    const live = await settledSummary(seller.liveKey, (s) => s.mrr === 2_500);
    expect(live).toMatchObject({
      mrr: 2_500,
      arr: 30_000,
      active_subscriptions: 1,
      customers: 1,
      net_revenue_30d: 2_500,
    });
    const test = await settledSummary(seller.testKey, (s) => s.mrr === 10_000);
    expect(test).toMatchObject({ mrr: 10_000, net_revenue_30d: 10_000 });
    const liveRevenue = await get(
      seller.liveKey,
      `/analytics/revenue?from=${monthOf(live.as_of)}&to=${monthOf(live.as_of)}`,
    );
    expect(liveRevenue.body).toEqual([{ month: monthOf(live.as_of), gross: 2_500, refunds: 0, net: 2_500, tax: 0 }]);
  });

  it('shows another project nothing of this one: zero figures in every route', async () => {
    // The seller's figures are in the read model before the other project is asked.
    await settledSummary(seller.testKey, (s) => s.mrr === 10_000);
    for (const key of [other.testKey, other.liveKey]) {
      const summary = (await summaryOf(key)).body;
      expect(summary).toMatchObject({
        mrr: 0,
        arr: 0,
        active_subscriptions: 0,
        trialing_subscriptions: 0,
        past_due_subscriptions: 0,
        customers: 0,
        arpu: 0,
        subscriber_churn_rate_30d: 0,
        net_revenue_30d: 0,
      });
      const mrr = (await get(key, '/analytics/mrr')).body as Json[];
      expect(mrr).toHaveLength(12);
      expect(mrr.every((m) => MRR_FIELDS.slice(1).every((field) => m[field] === 0))).toBe(true);
      const revenue = (await get(key, '/analytics/revenue')).body as Json[];
      expect(revenue.every((m) => REVENUE_FIELDS.slice(1).every((field) => m[field] === 0))).toBe(true);
    }
  });

  it('lists the 12 months ending with the test clock’s month by default, the movements adding up', async () => {
    await settledSummary(seller.testKey, (s) => s.mrr === 10_000);
    const res = await get(seller.testKey, '/analytics/mrr');
    expect(res.status).toBe(200);
    expect(res.body.map((m: Json) => m.month)).toEqual(monthsEndingWith(testMonth, 12));
    expect(res.body[11]).toEqual({
      month: testMonth,
      mrr: 10_000,
      new: 10_000,
      expansion: 0,
      contraction: 0,
      churned: 0,
      reactivation: 0,
      active_subscriptions: 1,
    });
    const revenue = await get(seller.testKey, '/analytics/revenue');
    expect(revenue.body[11]).toEqual({ month: testMonth, gross: 10_000, refunds: 0, net: 10_000, tax: 0 });
    // `to` alone: the 11 months before it too.
    const toAlone = await get(seller.testKey, '/analytics/revenue?to=2026-03');
    expect(toAlone.body.map((m: Json) => m.month)).toEqual(monthsEndingWith('2026-03', 12));
  });

  it('follows the test clock: an advance moves the default range and the figures’ as_of', async () => {
    const m = await registerMerchant(api, 'analytics-clock');
    const { subscriptionId } = await subscribe(m.testKey, 1_234.56, 'NGN', 'clock');
    const sub = (await get(m.testKey, `/subscriptions/${subscriptionId}`)).body;
    // Past the first renewal: a second charge of the same amount, in the renewal's month.
    const to = new Date(Date.parse(sub.current_period_end) + 3_600_000).toISOString();
    expect((await api('POST', '/api/v1/test-clock/advance', { apiKey: m.testKey, body: { to } })).status).toBe(200);
    const summary = await settledSummary(m.testKey, (s) => Date.parse(s.as_of) >= Date.parse(to) && s.mrr === 1_234.56);
    expect(Date.parse(summary.as_of)).toBeGreaterThanOrEqual(Date.parse(to));
    expect(Date.parse(summary.as_of) - Date.parse(to)).toBeLessThan(60_000);
    const revenue = await readWhenSettled(async () => (await get(m.testKey, '/analytics/revenue')).body as Json[], {
      done: (months) => months[11]?.gross === 1_234.56,
      timeoutMs: 20_000,
    });
    expect(revenue.map((r) => r.month)).toEqual(monthsEndingWith(monthOf(to), 12));
    expect(revenue.slice(10)).toEqual([
      { month: monthOf(sub.current_period_start), gross: 1_234.56, refunds: 0, net: 1_234.56, tax: 0 },
      { month: monthOf(to), gross: 1_234.56, refunds: 0, net: 1_234.56, tax: 0 },
    ]);
  });

  describe('representations', () => {
    const range = () => `from=${monthsEndingWith(testMonth, 3)[0]}&to=${testMonth}`;

    it('answers JSON without Accept, to */* and to an Accept it cannot give (no 406)', async () => {
      for (const path of SERIES) {
        for (const accept of [undefined, '*/*', 'application/json', 'text/html', 'text/csv;q=0.5, application/json']) {
          const res = await get(seller.testKey, `${path}?${range()}`, accept ? { accept } : {});
          expect([path, accept, res.status, res.headers.get('content-type')]).toEqual([
            path,
            accept,
            200,
            'application/json; charset=utf-8',
          ]);
          expect(res.headers.get('vary')).toMatch(/Accept/i);
          expect(res.body).toHaveLength(3);
        }
      }
    });

    it('answers text/csv to Accept: text/csv: a header row of the JSON fields, one line per month, the same figures', async () => {
      await settledSummary(seller.testKey, (s) => s.mrr === 10_000);
      for (const [path, fields] of [
        ['/analytics/mrr', MRR_FIELDS],
        ['/analytics/revenue', REVENUE_FIELDS],
      ] as const) {
        const json = (await get(seller.testKey, `${path}?${range()}`)).body as Json[];
        const csv = await get(seller.testKey, `${path}?${range()}`, { accept: 'text/csv' });
        expect([path, csv.status, csv.headers.get('content-type')]).toEqual([path, 200, 'text/csv; charset=utf-8']);
        expect(csv.headers.get('vary')).toMatch(/Accept/i);
        expect(csv.text.endsWith('\r\n')).toBe(true);
        const [header, ...lines] = csv.text.slice(0, -2).split('\r\n');
        expect(header).toBe(fields.join(','));
        expect(lines).toEqual(json.map((item) => fields.map((field) => String(item[field])).join(',')));
      }
      const csv = await get(seller.testKey, `/analytics/mrr?${range()}`, { accept: 'text/csv' });
      expect(csv.text.split('\r\n')[3]).toBe(`${testMonth},10000,10000,0,0,0,0,1`);
    });

    it('answers the summary in JSON whatever the Accept', async () => {
      const res = await get(seller.testKey, '/analytics/summary', { accept: 'text/csv' });
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
      expect(Object.keys(res.body).sort()).toEqual(SUMMARY_FIELDS);
    });
  });
});
