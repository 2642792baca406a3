import { DomainError, type FieldViolation } from '@billing/platform';

/** docs/api-behaviour.md §24: what the portal lets a customer do, per project and mode. */
export type CancellationMode = 'NONE' | 'AT_PERIOD_END' | 'IMMEDIATELY';
export type PlanChangeProration = 'IMMEDIATE' | 'NONE';

export interface PortalSettings {
  cancellation: CancellationMode;
  planChangeEnabled: boolean;
  planChangePlanIds: string[];
  planChangeProration: PlanChangeProration;
  paymentMethodUpdate: boolean;
  billingDetailsUpdate: boolean;
  headline: string | null;
  returnUrlDefault: string | null;
}

/** What GET /portal/configuration answers before any PUT. */
export const DEFAULT_SETTINGS: PortalSettings = {
  cancellation: 'AT_PERIOD_END',
  planChangeEnabled: false,
  planChangePlanIds: [],
  planChangeProration: 'IMMEDIATE',
  paymentMethodUpdate: true,
  billingDetailsUpdate: true,
  headline: null,
  returnUrlDefault: null,
};

const CANCELLATION: readonly CancellationMode[] = ['NONE', 'AT_PERIOD_END', 'IMMEDIATELY'];
const PRORATION: readonly PlanChangeProration[] = ['IMMEDIATE', 'NONE'];
export const MAX_HEADLINE = 100;
export const MAX_PLAN_IDS = 10;

/** An absolute http(s) URL: where "Return" sends the customer. */
export function isReturnUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && value.length <= 2000;
  } catch {
    return false;
  }
}

/** The settings of a PUT, checked field by field (the plans are checked against catalog apart). */
export function parseSettings(input: {
  cancellation: string;
  planChangeEnabled: boolean;
  planChangePlanIds: string[];
  planChangeProration: string;
  paymentMethodUpdate: boolean;
  billingDetailsUpdate: boolean;
  headline?: string;
  returnUrlDefault?: string;
}): PortalSettings {
  const violations: FieldViolation[] = [];
  const at = (field: string, msg: string) =>
    violations.push({ loc: ['body', ...field.split('.')], msg, type: 'value_error' });
  if (!CANCELLATION.includes(input.cancellation as CancellationMode))
    at('cancellation', 'must be NONE, AT_PERIOD_END or IMMEDIATELY');
  const proration = input.planChangeProration || 'IMMEDIATE';
  if (!PRORATION.includes(proration as PlanChangeProration)) at('plan_change.proration', 'must be IMMEDIATE or NONE');
  const planIds = [...new Set(input.planChangePlanIds)];
  if (planIds.length > MAX_PLAN_IDS) at('plan_change.plan_ids', `at most ${MAX_PLAN_IDS} plans`);
  if (input.planChangeEnabled && planIds.length < 2) {
    at('plan_change.plan_ids', 'name at least two plans to change between when plan changes are enabled');
  }
  const headline = input.headline?.trim() || null;
  if (headline && headline.length > MAX_HEADLINE) at('headline', `at most ${MAX_HEADLINE} characters`);
  const returnUrlDefault = input.returnUrlDefault?.trim() || null;
  if (returnUrlDefault && !isReturnUrl(returnUrlDefault)) at('return_url_default', 'must be an absolute http(s) URL');
  if (violations.length > 0) throw DomainError.invalid(violations);
  return {
    cancellation: input.cancellation as CancellationMode,
    planChangeEnabled: input.planChangeEnabled,
    planChangePlanIds: planIds,
    planChangeProration: proration as PlanChangeProration,
    paymentMethodUpdate: input.paymentMethodUpdate,
    billingDetailsUpdate: input.billingDetailsUpdate,
    headline,
    returnUrlDefault,
  };
}
