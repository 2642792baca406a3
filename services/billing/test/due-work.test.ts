import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize-typescript';
import { dropDatabases, uniqueRunId } from '@billing/testing';
import { openBillingTestDatabase } from './support/billing-database';
import { DueWorkRepository } from '../src/db/repositories/due-work.repository';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The scheduler's claim of due subscriptions (due-work.repository.ts): period ends earliest
 * first, then trial notices, at most the batch, each subscription once, and never one another
 * transaction holds.
 */
describe('claimDueSubscriptions', () => {
  const runId = uniqueRunId('duework');
  let sequelize: Sequelize;
  let dueWork: DueWorkRepository;
  const projectId = randomUUID();
  const customerId = randomUUID();
  const now = new Date();
  const ids: Record<string, string> = {};

  const subscription = async (
    name: string,
    status: 'ACTIVE' | 'TRIALING',
    periodEnd: Date,
    trialEnd: Date | null = null,
  ): Promise<void> => {
    ids[name] = randomUUID();
    const start = new Date(periodEnd.getTime() - 30 * DAY_MS);
    await sequelize.query(
      `INSERT INTO subscriptions (id, project_id, livemode, customer_id, plan_id, plan_name, amount, currency, interval,
         interval_count, status, billing_anchor, current_period_start, current_period_end, trial_end, metadata,
         created_at, updated_at)
       VALUES ($1, $2, false, $3, $4, 'Plan', 5000, 'NGN', 'monthly', 1, $5, $6, $6, $7, $8, '{}', $6, $6)`,
      { bind: [ids[name], projectId, customerId, randomUUID(), status, start, periodEnd, trialEnd] },
    );
  };

  beforeAll(async () => {
    sequelize = await openBillingTestDatabase(runId, 'due-work-test');
    dueWork = new DueWorkRepository(sequelize);
    await sequelize.query(
      `INSERT INTO customers (id, project_id, livemode, email, created_at, updated_at)
       VALUES ($1, $2, false, 'due@example.com', now(), now())`,
      { bind: [customerId, projectId] },
    );
    const ago = (ms: number) => new Date(now.getTime() - ms);
    for (let k = 5; k >= 1; k--) await subscription(`ended${k}h`, 'ACTIVE', ago(k * HOUR_MS));
    await subscription('notYet', 'ACTIVE', new Date(now.getTime() + DAY_MS));
    // Its trial ends in 2 days: the notice is due, the period end is not.
    const inTwoDays = new Date(now.getTime() + 2 * DAY_MS);
    await subscription('noticeOnly', 'TRIALING', inTwoDays, inTwoDays);
    // Jumped past its trial end: the notice and the period end are both due.
    await subscription('bothDue', 'TRIALING', ago(30 * 60 * 1000), ago(30 * 60 * 1000));
    // Its period ended but its renewal invoice is still OPEN (being charged): not due.
    await subscription('charging', 'ACTIVE', ago(6 * HOUR_MS));
    await sequelize.query(
      `INSERT INTO invoices (id, project_id, livemode, number, subscription_id, customer_id, status, currency, subtotal,
         amount, total_excluding_tax, amount_due, amount_paid, period_start, period_end, due_date, attempt_count,
         created_at, updated_at)
       VALUES ($1, $2, false, 'INV-1', $3, $4, 'OPEN', 'NGN', 5000, 5000, 5000, 5000, 0, $5, $5, $5, 0, $5, $5)`,
      { bind: [randomUUID(), projectId, ids.charging, customerId, ago(6 * HOUR_MS)] },
    );
  });
  afterAll(async () => {
    await sequelize?.close();
    await dropDatabases(runId);
  });

  const names = (rows: { id: string }[]) =>
    rows.map((r) => Object.keys(ids).find((name) => ids[name] === r.id) ?? r.id);
  const claim = (limit: number, run: (rows: { id: string }[]) => Promise<void> = async () => undefined) =>
    sequelize.transaction(async (transaction) => {
      const rows = await dueWork.claimDueSubscriptions(now, { livemode: false, limit }, transaction);
      await run(rows);
      return rows;
    });

  it('takes period ends earliest first and stops at the batch', async () => {
    expect(names(await claim(3))).toEqual(['ended5h', 'ended4h', 'ended3h']);
  });

  it('then trial notices, each subscription once, and none with an OPEN invoice or not yet due', async () => {
    expect(names(await claim(100))).toEqual([
      'ended5h',
      'ended4h',
      'ended3h',
      'ended2h',
      'ended1h',
      'bothDue',
      'noticeOnly',
    ]);
  });

  it('skips what another transaction holds', async () => {
    let other: string[] = [];
    await claim(2, async () => {
      other = names(
        await sequelize.transaction((transaction) =>
          dueWork.claimDueSubscriptions(now, { livemode: false, limit: 100 }, transaction),
        ),
      );
    });
    expect(other).toEqual(['ended3h', 'ended2h', 'ended1h', 'bothDue', 'noticeOnly']);
  });

  it('claims nothing of the other mode', async () => {
    const live = await sequelize.transaction((transaction) =>
      dueWork.claimDueSubscriptions(now, { livemode: true, limit: 100 }, transaction),
    );
    expect(live).toEqual([]);
  });
});
