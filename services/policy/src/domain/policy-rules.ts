import Decimal from 'decimal.js';
import { DomainError, type FieldViolation } from '@billing/platform';
import { REFUND_TYPES, type RefundRules, type RefundType } from './refund-quote';

const NAME_MAX_LENGTH = 200;
const PERCENTAGE_DECIMALS = 2;
/** Keeps the column an int32; a century is longer than any billing period. */
export const MAX_REFUND_WINDOW_DAYS = 36_500;

/** A policy as a client describes it (docs/api-behaviour.md §10); money in minor units. */
export interface PolicyDraft {
  name: string;
  refundType: string;
  /** Exact decimal text; required for PARTIAL, ignored otherwise. */
  refundPercentage?: string | null;
  refundWindowDays: number;
  prorateRefund: boolean;
  cancellationFee: number;
  applyToExisting: boolean;
  isDefault: boolean;
}

export interface ValidPolicy extends PolicyDraft {
  refundType: RefundType;
  /** Canonical decimal text ("33.5") for PARTIAL; null otherwise, so a stale one cannot return. */
  refundPercentage: string | null;
}

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** The client sent a JSON number; echo it as one. */
const echo = (text: string): unknown => (Number.isFinite(Number(text)) ? Number(text) : text);

/**
 * Every rule of docs/api-behaviour.md §10 on a whole policy (a new one, or a stored one with a PATCH applied),
 * reported together as field violations named like the REST body's fields. The gateway checks
 * shapes first; this is the authority for any caller of the gRPC API.
 */
export function validatePolicy(draft: PolicyDraft): ValidPolicy {
  const violations: FieldViolation[] = [];
  const bad = (field: string, type: string, msg: string, input?: unknown, ctx?: Record<string, unknown>) =>
    violations.push({
      loc: ['body', field],
      msg,
      type,
      ...(input === undefined ? {} : { input }),
      ...(ctx ? { ctx } : {}),
    });

  const name = draft.name.trim();
  if (name.length < 1)
    bad('name', 'string_too_short', 'String should have at least 1 character', draft.name, { min_length: 1 });
  if (name.length > NAME_MAX_LENGTH) {
    bad('name', 'string_too_long', `String should have at most ${NAME_MAX_LENGTH} characters`, draft.name, {
      max_length: NAME_MAX_LENGTH,
    });
  }

  const refundType = REFUND_TYPES.find((t) => t === draft.refundType);
  if (!refundType) {
    bad('refund_type', 'enum', `Input should be ${REFUND_TYPES.map((t) => `'${t}'`).join(', ')}`, draft.refundType, {
      expected: REFUND_TYPES.join(', '),
    });
  }

  let refundPercentage: string | null = null;
  if (refundType === 'PARTIAL') refundPercentage = checkPercentage(draft.refundPercentage, bad);

  if (!Number.isInteger(draft.refundWindowDays) || draft.refundWindowDays < 0) {
    bad(
      'refund_window_days',
      'greater_than_equal',
      'Input should be greater than or equal to 0',
      draft.refundWindowDays,
      {
        ge: 0,
      },
    );
  } else if (draft.refundWindowDays > MAX_REFUND_WINDOW_DAYS) {
    bad(
      'refund_window_days',
      'less_than_equal',
      `Input should be less than or equal to ${MAX_REFUND_WINDOW_DAYS}`,
      draft.refundWindowDays,
      { le: MAX_REFUND_WINDOW_DAYS },
    );
  }

  if (!Number.isSafeInteger(draft.cancellationFee) || draft.cancellationFee < 0) {
    // Minor units here; the client wrote major units, so the input is not echoed in the wrong unit.
    bad('cancellation_fee', 'greater_than_equal', 'Input should be greater than or equal to 0', undefined, { ge: 0 });
  }

  if (violations.length) throw DomainError.invalid(violations);
  return { ...draft, name, refundType: refundType!, refundPercentage };
}

function checkPercentage(
  raw: string | null | undefined,
  bad: (field: string, type: string, msg: string, input?: unknown, ctx?: Record<string, unknown>) => void,
): string | null {
  const field = 'refund_percentage';
  if (raw === undefined || raw === null || raw === '') {
    bad(field, 'missing', 'Field required when refund_type is PARTIAL');
    return null;
  }
  if (!DECIMAL_TEXT.test(raw)) {
    bad(field, 'decimal_parsing', 'Input should be a valid decimal', raw);
    return null;
  }
  const value = new Decimal(raw);
  if (value.lt(0)) {
    bad(field, 'greater_than_equal', 'Input should be greater than or equal to 0', echo(raw), { ge: 0 });
  } else if (value.gt(100)) {
    bad(field, 'less_than_equal', 'Input should be less than or equal to 100', echo(raw), { le: 100 });
  } else if (value.decimalPlaces() > PERCENTAGE_DECIMALS) {
    bad(
      field,
      'decimal_max_places',
      `Decimal input should have no more than ${PERCENTAGE_DECIMALS} decimal places`,
      echo(raw),
      { decimal_places: PERCENTAGE_DECIMALS },
    );
  } else {
    return value.toFixed();
  }
  return null;
}

/** What the refund computation needs of a stored policy. */
export interface StoredRules {
  refundType: string;
  refundPercentage: string | null;
  refundWindowDays: number;
  prorateRefund: boolean;
  cancellationFee: number;
}

export function refundRulesOf(policy: StoredRules): RefundRules {
  return {
    refundType: policy.refundType as RefundType,
    refundPercentage: policy.refundPercentage === null ? null : Number(policy.refundPercentage),
    refundWindowDays: policy.refundWindowDays,
    prorateRefund: policy.prorateRefund,
    cancellationFee: policy.cancellationFee,
  };
}

/**
 * docs/api-behaviour.md §10 and 16.5: a policy named on cancel always applies; the default applies to
 * subscriptions created after it, or to every subscription with apply_to_existing.
 */
export function policyApplies(
  policy: { applyToExisting: boolean; createdAt: Date },
  subscriptionCreatedAt: Date,
  named: boolean,
): boolean {
  return named || policy.applyToExisting || subscriptionCreatedAt.getTime() > policy.createdAt.getTime();
}
