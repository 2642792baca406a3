import { CURRENCIES, DEFAULT_CURRENCY, DomainError, type FieldViolation } from '@billing/platform';

export const INTERVALS = ['daily', 'weekly', 'monthly', 'quarterly', 'biannually', 'annually'] as const;
export type Interval = (typeof INTERVALS)[number];

/** Fields that price a plan; changing them would re-price live subscriptions, so they are fixed. */
export const IMMUTABLE_PLAN_FIELDS = [
  'amount',
  'currency',
  'interval',
  'interval_count',
  'trial_period_days',
  'usage_unit_amount',
] as const;

const MAX_METADATA_KEYS = 50;

/** Input is case-insensitive and `yearly` means `annually` (docs/api-behaviour.md §4). */
export function normalizeInterval(raw: string): Interval | null {
  const lower = raw.trim().toLowerCase();
  const value = lower === 'yearly' ? 'annually' : lower;
  return (INTERVALS as readonly string[]).includes(value) ? (value as Interval) : null;
}

export interface PlanDraft {
  name: string;
  description: string;
  amount: number;
  currency: string;
  interval: string;
  intervalCount: number;
  trialPeriodDays: number;
  usageUnitAmount?: number;
  metadata?: Record<string, unknown>;
}

export interface ValidPlan extends PlanDraft {
  currency: (typeof CURRENCIES)[number];
  interval: Interval;
}

/**
 * Applies defaults and checks every rule of a new plan. The gateway checks shapes first;
 * this is the authority for any caller of the gRPC API.
 */
export function validateNewPlan(draft: PlanDraft): ValidPlan {
  const violations: FieldViolation[] = [];
  const bad = (field: string, msg: string, input: unknown, type = 'value_error') =>
    violations.push({ loc: ['body', field], msg, type, input });
  if (draft.name.trim().length < 1 || draft.name.length > 200)
    bad('name', 'String should have 1 to 200 characters', draft.name);
  if (!Number.isSafeInteger(draft.amount) || draft.amount < 0)
    bad('amount', 'Input should be greater than or equal to 0', draft.amount);
  const currency = (draft.currency || DEFAULT_CURRENCY).toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(currency))
    bad('currency', `Input should be ${CURRENCIES.join(', ')}`, draft.currency, 'enum');
  const interval = normalizeInterval(draft.interval || 'monthly');
  if (!interval) bad('interval', `Input should be ${INTERVALS.join(', ')}`, draft.interval, 'enum');
  const intervalCount = draft.intervalCount || 1;
  if (intervalCount < 1 || intervalCount > 52)
    bad('interval_count', 'Input should be between 1 and 52', draft.intervalCount);
  if (draft.trialPeriodDays < 0 || draft.trialPeriodDays > 730)
    bad('trial_period_days', 'Input should be between 0 and 730', draft.trialPeriodDays);
  if (draft.usageUnitAmount !== undefined && draft.usageUnitAmount < 0)
    bad('usage_unit_amount', 'Input should be greater than or equal to 0', draft.usageUnitAmount);
  checkMetadata(draft.metadata, violations);
  if (violations.length) throw DomainError.invalid(violations);
  return {
    ...draft,
    name: draft.name.trim(),
    currency: currency as ValidPlan['currency'],
    interval: interval!,
    intervalCount,
  };
}

export function checkMetadata(metadata: Record<string, unknown> | undefined, violations: FieldViolation[]): void {
  if (metadata && Object.keys(metadata).length > MAX_METADATA_KEYS) {
    violations.push({
      loc: ['body', 'metadata'],
      msg: `Metadata can have at most ${MAX_METADATA_KEYS} keys`,
      type: 'too_long',
      ctx: { max_length: MAX_METADATA_KEYS },
    });
  }
}

export function refuseImmutableChanges(fields: string[]): void {
  const attempted = fields.filter((f) => (IMMUTABLE_PLAN_FIELDS as readonly string[]).includes(f));
  if (attempted.length) {
    throw new DomainError(
      'failed_precondition',
      `Plan prices are immutable (${attempted.join(', ')}); create a new plan instead`,
    );
  }
}
