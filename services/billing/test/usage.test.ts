import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize-typescript';
import { systemClock, type ProjectScope } from '@billing/platform';
import { dropDatabases, uniqueRunId } from '@billing/testing';
import { openBillingTestDatabase } from './support/billing-database';
import { CustomerModel, InvoiceLineModel, UsageRecordModel, type SubscriptionModel } from '../src/db/models';
import { CustomerBalanceRepository } from '../src/db/repositories/customer-balance.repository';
import { CustomerRepository } from '../src/db/repositories/customer.repository';
import { InvoicePartyRepository } from '../src/db/repositories/invoice-party.repository';
import { InvoiceRepository } from '../src/db/repositories/invoice.repository';
import { TaxRateRepository } from '../src/db/repositories/tax-rate.repository';
import { SubscriptionRepository } from '../src/db/repositories/subscription.repository';
import { UsageRecordRepository } from '../src/db/repositories/usage-record.repository';
import { canonicalQuantity, parseUsageQuantity, usageAmount } from '../src/domain/usage-quantity';
import type { BillingDeps } from '../src/billing-deps';
import { openPeriodInvoice } from '../src/invoicing/invoice-payment';
import { ProjectClocks } from '@billing/platform';

// The compiled modules (npx tsc -b services/billing first): sequelize-typescript models need
// TypeScript's class-field semantics, which the test transform does not reproduce.
describe('usage quantity (domain)', () => {
  it.each([
    ['1.5', '1.5'],
    ['3', '3'],
    ['3.000000', '3'],
    ['-0.25', '-0.25'],
    ['+2', '2'],
    ['0', '0'],
    ['-0', '0'],
    ['-0.000', '0'],
    ['00012.500', '12.5'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['  7.25 ', '7.25'],
    ['999999999999999999.999999', '999999999999999999.999999'],
    ['-999999999999999999.999999', '-999999999999999999.999999'],
    ['0.1234560', '0.123456'],
    [String(0.1), '0.1'],
    [String(123456.789), '123456.789'],
  ])('%j -> %j', (input, canonical) => {
    expect(parseUsageQuantity(input)).toEqual({ ok: true, value: canonical });
  });

  it.each([
    '',
    'abc',
    '1,5',
    '1.2.3',
    '0x10',
    'NaN',
    'Infinity',
    '-',
    '.',
    '1e',
    '--1',
    '1 000',
    '0.0000001',
    '1e-7',
    '1.1234567',
    '1000000000000000000',
    '-1000000000000000000',
    '1e18',
    '1e3',
    '1.5E-3',
    '1e-6',
    '1E0',
  ])('refuses %j', (input) => {
    const result = parseUsageQuantity(input);
    expect(result.ok).toBe(false);
  });

  it('canonicalizes NUMERIC text and prices usage rounding once, half away from zero', () => {
    expect(canonicalQuantity('0.300000')).toBe('0.3');
    expect(canonicalQuantity('-0.000000')).toBe('0');
    expect(canonicalQuantity('1200.000000')).toBe('1200');
    expect(usageAmount('0.5', 5)).toBe(3); // 2.5 -> 3
    expect(usageAmount('-0.5', 5)).toBe(-3); // -2.5 -> -3
    expect(usageAmount('0.3', 10)).toBe(3);
    expect(usageAmount('0.333333', 1000)).toBe(333);
    expect(usageAmount('0.1234565', 1)).toBe(0);
    expect(usageAmount('999999999999.999999', 2)).toBe(2000000000000);
  });
});

/** Against a real PostgreSQL database with billing's migrations (no gRPC, no other process). */
describe('usage in PostgreSQL: exact sums and the usage line of a renewal (billUsageForPeriod)', () => {
  const runId = uniqueRunId('usage');
  let sequelize: Sequelize;
  let deps: BillingDeps;
  const usage = new UsageRecordRepository();
  const scope: ProjectScope = { projectId: randomUUID(), merchantId: randomUUID(), livemode: false };

  beforeAll(async () => {
    sequelize = await openBillingTestDatabase(runId, 'usage-test');
    deps = {
      sequelize,
      usage,
      clocks: new ProjectClocks(sequelize, systemClock),
      clock: systemClock,
      invoices: new InvoiceRepository(),
      taxRates: new TaxRateRepository(),
      customers: new CustomerRepository(),
      balances: new CustomerBalanceRepository(),
      invoiceParties: new InvoicePartyRepository(sequelize),
    } as unknown as BillingDeps;
    // The project's seller as billing keeps it, so that its invoices have one without asking identity.
    const seller = { name: 'Usage Ltd', legal_name: null, business_name: 'Usage Ltd', address: null };
    const details = { ...seller, tax_id: null, support_email: null, invoice_footer: null };
    const kept = { projectId: scope.projectId, merchantId: scope.merchantId, seller: details, updatedAt: new Date() };
    await deps.invoiceParties.keepSellers([kept], new Date());
  });
  afterAll(async () => {
    await sequelize?.close();
    await dropDatabases(runId);
  });

  const periodStart = new Date('2026-01-01T00:00:00.000Z');
  const periodEnd = new Date('2026-02-01T00:00:00.000Z');

  async function newSubscription(usageUnitAmount: number | null): Promise<SubscriptionModel> {
    const now = new Date();
    const customer = await CustomerModel.create({
      id: randomUUID(),
      projectId: scope.projectId,
      livemode: false,
      email: `${randomUUID()}@example.com`,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    });
    return sequelize.transaction((transaction) =>
      new SubscriptionRepository().create(
        scope,
        {
          id: randomUUID(),
          customerId: customer.id,
          planId: randomUUID(),
          planName: 'Metered',
          planTaxRateIds: [],
          amount: 100000,
          currency: 'NGN',
          interval: 'monthly',
          intervalCount: 1,
          usageUnitAmount,
          status: 'ACTIVE',
          billingAnchor: periodStart,
          trialEnd: null,
          billingCycles: null,
          currentPeriodStart: periodStart,
          currentPeriodEnd: periodEnd,
          metadata: {},
          checkoutSessionId: null,
          createdAt: now,
        },
        transaction,
      ),
    );
  }

  const record = (subscriptionId: string, quantity: string, timestamp: Date, idempotencyKey: string | null = null) => ({
    subscriptionId,
    quantity,
    description: null,
    idempotencyKey,
    timestamp,
  });

  /**
   * The renewal invoice of the period after the subscription's current one, as the renewal opens
   * it (openPeriodInvoice: the subscription line, then the usage line); `amount` is the usage's part.
   */
  async function renew(
    subscription: SubscriptionModel,
    invoicePeriodStart = periodEnd,
  ): Promise<{ amount: number; invoiceId: string }> {
    return sequelize.transaction(async (transaction) => {
      const invoice = await openPeriodInvoice(
        deps,
        subscription,
        { start: invoicePeriodStart, end: new Date(invoicePeriodStart.getTime() + 86_400_000) },
        new Date(),
        transaction,
      );
      // Totals computed once, with every line: amount_due is the whole amount (no balance).
      expect([invoice.subtotal, invoice.amountDue]).toEqual([invoice.amount, invoice.amount]);
      return { amount: invoice.amount - subscription.amount, invoiceId: invoice.id };
    });
  }

  it('sums 0.1 + 0.2 exactly (0.3) in NUMERIC', async () => {
    const subscription = await newSubscription(1000);
    await usage.insertMany(
      scope,
      [record(subscription.id, '0.1', periodStart), record(subscription.id, '0.2', periodStart)],
      new Date(),
    );
    expect(canonicalQuantity(await usage.sumUnbilled(subscription.id, periodEnd))).toBe('0.3');
  });

  it('skips a repeated idempotency key, also inside one multi-row insert', async () => {
    const subscription = await newSubscription(1000);
    const first = await usage.insertMany(
      scope,
      [
        record(subscription.id, '1', periodStart, 'a'),
        record(subscription.id, '2', periodStart, 'a'),
        record(subscription.id, '3', periodStart, 'b'),
      ],
      new Date(),
    );
    expect(first).toEqual({ accepted: 2, duplicates: 1 });
    expect((await usage.findByIdempotencyKey(subscription.id, 'a'))?.quantity).toBe('1.000000');
    const again = await usage.insertMany(scope, [record(subscription.id, '9', periodStart, 'b')], new Date());
    expect(again).toEqual({ accepted: 0, duplicates: 1 });
    expect((await usage.findByIdempotencyKey(subscription.id, 'b'))?.quantity).toBe('3.000000');
  });

  it('bills every unbilled record before the period end on ONE usage line and marks exactly those', async () => {
    const subscription = await newSubscription(250); // 2.50 per unit
    const other = await newSubscription(250);
    const before = new Date('2025-12-15T00:00:00.000Z'); // unbilled from earlier: billed too
    const inside = new Date('2026-01-20T00:00:00.000Z');
    const atEnd = periodEnd; // belongs to the next period
    await usage.insertMany(
      scope,
      [
        record(subscription.id, '0.1', before),
        record(subscription.id, '0.2', inside),
        record(subscription.id, '10.5', inside),
        record(subscription.id, '-0.8', inside),
        record(subscription.id, '7', atEnd),
        record(other.id, '100', inside),
      ],
      new Date(),
    );

    const { amount, invoiceId } = await renew(subscription);
    // 0.1 + 0.2 + 10.5 - 0.8 = 10 units x 250 = 2500.
    expect(amount).toBe(2500);
    const lines = await InvoiceLineModel.findAll({ where: { invoiceId }, order: [['position', 'ASC']] });
    expect(lines.map((l) => [l.type, l.position])).toEqual([
      ['SUBSCRIPTION', 0],
      ['USAGE', 1],
    ]);
    const usageLine = lines[1];
    expect(canonicalQuantity(usageLine.quantity)).toBe('10');
    expect(usageLine.unitAmount).toBe(250);
    expect(usageLine.amount).toBe(2500);
    expect(usageLine.periodStart.toISOString()).toBe(periodStart.toISOString());
    expect(usageLine.periodEnd.toISOString()).toBe(periodEnd.toISOString());

    const records = await UsageRecordModel.findAll({ where: { subscriptionId: subscription.id } });
    const billed = records.filter((r) => r.billed);
    expect(billed.map((r) => canonicalQuantity(r.quantity)).sort()).toEqual(['-0.8', '0.1', '0.2', '10.5']);
    expect(billed.every((r) => r.invoiceId === invoiceId && r.billedAt instanceof Date)).toBe(true);
    const unbilled = records.filter((r) => !r.billed);
    expect(unbilled.map((r) => [canonicalQuantity(r.quantity), r.invoiceId, r.billedAt])).toEqual([['7', null, null]]);
    const untouched = await UsageRecordModel.findAll({ where: { subscriptionId: other.id } });
    expect(untouched.map((r) => r.billed)).toEqual([false]);

    // A second renewal of the same period finds nothing left: no line, 0.
    const again = await renew(subscription, new Date('2026-03-01T00:00:00.000Z'));
    expect(again.amount).toBe(0);
    expect(await InvoiceLineModel.count({ where: { invoiceId: again.invoiceId, type: 'USAGE' } })).toBe(0);
  });

  it('rounds the line once, half away from zero, and a net negative usage bills 0', async () => {
    const rounded = await newSubscription(5);
    await usage.insertMany(
      scope,
      [record(rounded.id, '0.3', periodStart), record(rounded.id, '0.2', periodStart)],
      new Date(),
    );
    expect((await renew(rounded)).amount).toBe(3); // 0.5 x 5 = 2.5 -> 3

    const negative = await newSubscription(100);
    await usage.insertMany(scope, [record(negative.id, '-2', periodStart)], new Date());
    const { amount, invoiceId } = await renew(negative);
    expect(amount).toBe(0);
    const [line] = await InvoiceLineModel.findAll({ where: { invoiceId, type: 'USAGE' } });
    expect([canonicalQuantity(line.quantity), line.amount]).toEqual(['-2', 0]);
  });

  it('bills nothing (no line, records stay unbilled) when the plan is not metered or nothing is unbilled', async () => {
    const flat = await newSubscription(null);
    await usage.insertMany(scope, [record(flat.id, '4', periodStart)], new Date());
    const { amount, invoiceId } = await renew(flat);
    expect(amount).toBe(0);
    expect(await InvoiceLineModel.count({ where: { invoiceId } })).toBe(1);
    expect(await UsageRecordModel.count({ where: { subscriptionId: flat.id, billed: false } })).toBe(1);

    const idle = await newSubscription(100);
    expect((await renew(idle)).amount).toBe(0);
  });

  it('leaves nothing billed when the renewal transaction rolls back', async () => {
    const subscription = await newSubscription(100);
    await usage.insertMany(scope, [record(subscription.id, '1', periodStart)], new Date());
    await expect(
      sequelize.transaction(async (transaction) => {
        const invoice = await openPeriodInvoice(
          deps,
          subscription,
          { start: periodEnd, end: new Date('2026-03-01T00:00:00.000Z') },
          new Date(),
          transaction,
        );
        expect(invoice.amount - subscription.amount).toBe(100);
        throw new Error('charge failed');
      }),
    ).rejects.toThrow('charge failed');
    expect(await UsageRecordModel.count({ where: { subscriptionId: subscription.id, billed: false } })).toBe(1);
  });
});
