import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { dropDatabases, uniqueRunId } from '@billing/testing';
import { IdempotencyKeyRepository } from '../src/db/repositories/idempotency-key.repository';
import { expireIdempotencyKeys } from '../src/usecases/scheduler/expire-idempotency-keys.usecase';
import { openBillingTestDatabase } from './support/billing-database';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Billing's Idempotency-Key records live 24 h, as the gateway's do (docs/api-behaviour.md
 * §17.1): past that they answer no retry and are deleted, so the table does not grow forever.
 */
describe('Idempotency-Key records expire after 24 h', () => {
  const runId = uniqueRunId('keyexpiry');
  let sequelize: Sequelize;
  let keys: IdempotencyKeyRepository;
  const scope = { projectId: randomUUID(), merchantId: randomUUID(), livemode: false };
  const now = new Date();

  beforeAll(async () => {
    sequelize = await openBillingTestDatabase(runId, 'key-expiry-test');
    keys = new IdempotencyKeyRepository(sequelize);
  });
  afterAll(async () => {
    await sequelize?.close();
    await dropDatabases(runId);
  });

  const claimAt = (key: string, at: Date) =>
    keys.claim(scope, { operation: 'pay_invoice', key, fingerprint: key, resource: { id: key } }, at);
  const stored = async () =>
    (
      await sequelize.query<{ idempotency_key: string }>(
        'SELECT idempotency_key FROM idempotency_keys WHERE project_id = $1 ORDER BY idempotency_key',
        { bind: [scope.projectId], type: QueryTypes.SELECT },
      )
    ).map((row) => row.idempotency_key);

  it('deletes the records older than 24 h, in batches, and keeps the younger ones answering retries', async () => {
    // 1,005 keys two batches must take, stored in one statement (a claim each would cost 1,005).
    await sequelize.query(
      `INSERT INTO idempotency_keys (project_id, livemode, operation, idempotency_key, fingerprint, resource, created_at)
       SELECT $1, false, 'pay_invoice', 'old-' || lpad(k::text, 4, '0'), 'old', '{}', $2
         FROM generate_series(0, 1004) AS k`,
      { bind: [scope.projectId, new Date(now.getTime() - 25 * HOUR_MS)] },
    );
    await claimAt('young', new Date(now.getTime() - 23 * HOUR_MS));

    const deleted = await expireIdempotencyKeys({ idempotencyKeys: keys, clock: { now: () => now } });
    expect(deleted).toBe(1005);
    expect(await stored()).toEqual(['young']);
    expect(await claimAt('young', now)).toEqual({ fresh: false, resource: { id: 'young' } });
    expect(await expireIdempotencyKeys({ idempotencyKeys: keys, clock: { now: () => now } })).toBe(0);
  });
});
