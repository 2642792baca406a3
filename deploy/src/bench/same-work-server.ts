/**
 * The auth benchmark's same-work baseline (issue 16): one Express process doing what the
 * platform does for `GET /api/v1/plans/{id}`, with nothing in between. It checks the X-Api-Key
 * against identity's table (the same query as identity's verifyApiKey, cached in memory by the
 * key's SHA-256 as the gateway caches it), reads the plan with the same SELECT catalog's
 * PlanRepository makes, applies the same tenant rules, and answers the same JSON the gateway
 * does. It runs as a child process (fork) so that it does not share an event loop with the load
 * generator. Protocol: the parent sends {databaseUrl, identityDatabase, catalogDatabase}; we
 * answer {port} once listening.
 */
import { createHash } from 'node:crypto';
import express from 'express';
import { Pool } from 'pg';
import { databaseUrl, toMajorUnits } from '@billing/platform';

interface Start {
  databaseUrl: string;
  identityDatabase: string;
  catalogDatabase: string;
}

interface KeyOwner {
  id: string;
  project_id: string;
  is_live: boolean;
  is_active: boolean;
  revoked_at: Date | null;
  merchant_is_active: boolean;
}

interface PlanRow {
  id: string;
  projectId: string;
  livemode: boolean;
  name: string;
  description: string;
  amount: string;
  currency: string;
  interval: string;
  intervalCount: number;
  trialPeriodDays: number;
  usageUnitAmount: string | null;
  isActive: boolean;
  metadata: Record<string, unknown> | null;
  taxRateIds: string[];
  createdAt: Date;
}

/** identity's ApiKeyRepository.findOwnerByHash. */
const KEY_OWNER_SQL = `SELECT k.id, k.project_id, k.merchant_id, k.is_live, k.is_active, k.revoked_at, k.last_used_at,
        m.is_active AS merchant_is_active
   FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
  WHERE k.key_hash = $1`;

/** What Sequelize sends for catalog's PlanRepository.get (findOne by id), as a bound query. */
const PLAN_SQL = `SELECT "id", "project_id" AS "projectId", "livemode", "name", "description", "amount", "currency",
        "interval", "interval_count" AS "intervalCount", "trial_period_days" AS "trialPeriodDays",
        "usage_unit_amount" AS "usageUnitAmount", "is_active" AS "isActive", "metadata",
        "tax_rate_ids" AS "taxRateIds", "created_at" AS "createdAt", "updated_at" AS "updatedAt"
   FROM "plans" AS "PlanModel" WHERE "PlanModel"."id" = $1 LIMIT 1`;

/** The gateway's answer to a failed check (docs/api-behaviour.md): a problem body with its status. */
function problem(res: express.Response, status: number, detail: string): void {
  res.status(status).json({ detail });
}

process.once('message', (message: Start) => {
  // The same pool size as every platform service (openDatabase's default).
  const identity = new Pool({ connectionString: databaseUrl(message.databaseUrl, message.identityDatabase), max: 10 });
  const catalog = new Pool({ connectionString: databaseUrl(message.databaseUrl, message.catalogDatabase), max: 10 });
  const keys = new Map<string, KeyOwner>();

  const app = express();
  app.disable('x-powered-by');
  app.get('/api/v1/plans/:plan_id', async (req, res) => {
    const key = req.get('x-api-key')?.trim();
    if (!key) return problem(res, 401, 'Not authenticated: send the X-Api-Key header');
    const fingerprint = createHash('sha256').update(key, 'utf8').digest('hex');
    let owner = keys.get(fingerprint);
    if (!owner) {
      owner = (await identity.query<KeyOwner>(KEY_OWNER_SQL, [fingerprint])).rows[0];
      if (!owner || owner.revoked_at) return problem(res, 401, 'Invalid API key');
      if (!owner.is_active || !owner.merchant_is_active) return problem(res, 403, 'API key is disabled');
      keys.set(fingerprint, owner);
    }
    const plan = (await catalog.query<PlanRow>(PLAN_SQL, [req.params.plan_id])).rows[0];
    if (!plan || plan.livemode !== owner.is_live) return problem(res, 404, 'Plan not found');
    if (plan.projectId !== owner.project_id) return problem(res, 403, 'Plan belongs to another project');
    // The gateway's toPlan (gateway/src/routes/v1/plans/plans.schemas.ts), field for field.
    res.status(200).json({
      id: plan.id,
      name: plan.name,
      description: plan.description || null,
      amount: toMajorUnits(plan.amount),
      currency: plan.currency,
      interval: plan.interval,
      interval_count: plan.intervalCount,
      trial_period_days: plan.trialPeriodDays,
      usage_unit_amount: plan.usageUnitAmount === null ? null : toMajorUnits(plan.usageUnitAmount),
      is_active: plan.isActive,
      metadata: plan.metadata ?? {},
      tax_rate_ids: plan.taxRateIds,
      livemode: plan.livemode,
      created_at: plan.createdAt.toISOString(),
    });
  });

  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  server.keepAliveTimeout = 65_000;
  const stop = () => {
    server.closeAllConnections();
    server.close(() => {
      void Promise.all([identity.end(), catalog.end()]).finally(() => process.exit(0));
    });
  };
  // The parent going away (normally or not) ends the baseline too.
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
});
