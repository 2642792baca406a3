import { COUNTRY_CODE_MESSAGE, DomainError, ExactDecimal, isCountryCode, type FieldViolation } from '@billing/platform';
import { TAX_EXEMPTIONS, type TaxExempt } from './invoice-totals';

/**
 * The rules of tax rates and of where they are attached (docs/api-behaviour.md §21), pure. The
 * gateway checks shapes first; these are the authority for every gRPC caller, each violation an
 * item of the 422.
 */

/** A subscription carries at most this many rates. */
export const MAX_TAX_RATES = 5;

const MAX_DISPLAY_NAME = 50;
const MAX_JURISDICTION = 50;
const MAX_DESCRIPTION = 200;
/** 0 <= p < 100 with at most 4 decimals, as plain decimal text (no exponent, no sign). */
const PERCENTAGE = /^\d{1,2}(\.\d{1,4})?$/;

export interface TaxRateFields {
  displayName: string;
  /** Exact decimal text ("7.5"). */
  percentage: string;
  inclusive: boolean;
  country?: string;
  jurisdiction?: string;
  description?: string;
}

/** A new rate's fields as they are stored: trimmed, canonical, absent ones null. */
export interface ValidTaxRate {
  displayName: string;
  percentage: string;
  inclusive: boolean;
  country: string | null;
  jurisdiction: string | null;
  description: string | null;
}

export interface TaxRateEdit {
  displayName?: string;
  description?: string;
  isActive?: boolean;
}

const tooLong = (field: string, max: number, input: string): FieldViolation => ({
  loc: ['body', field],
  msg: `String should have at most ${max} characters`,
  type: 'string_too_long',
  input,
  ctx: { max_length: max },
});

function displayNameViolations(name: string | undefined, required: boolean): FieldViolation[] {
  if (name === undefined)
    return required ? [{ loc: ['body', 'display_name'], msg: 'Field required', type: 'missing' }] : [];
  if (name.length === 0) {
    return [
      {
        loc: ['body', 'display_name'],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
        input: name,
        ctx: { min_length: 1 },
      },
    ];
  }
  return name.length > MAX_DISPLAY_NAME ? [tooLong('display_name', MAX_DISPLAY_NAME, name)] : [];
}

/** A new rate's fields, trimmed (text) and canonical (the percentage: "7.50" -> "7.5"); else a 422. */
export function validateNewTaxRate(fields: TaxRateFields): ValidTaxRate {
  const displayName = fields.displayName.trim();
  const jurisdiction = fields.jurisdiction?.trim() || null;
  const description = fields.description?.trim() || null;
  const violations = displayNameViolations(displayName, true);
  const percentage = fields.percentage.trim();
  if (!PERCENTAGE.test(percentage)) {
    violations.push({
      loc: ['body', 'percentage'],
      msg: 'Input should be a number from 0 to less than 100 with at most 4 decimal places',
      type: 'value_error',
      input: fields.percentage,
    });
  }
  const country = fields.country ?? null;
  if (country !== null && !isCountryCode(country)) {
    violations.push({
      loc: ['body', 'country'],
      msg: COUNTRY_CODE_MESSAGE,
      type: 'value_error',
      input: fields.country,
    });
  }
  if (jurisdiction && jurisdiction.length > MAX_JURISDICTION) {
    violations.push(tooLong('jurisdiction', MAX_JURISDICTION, jurisdiction));
  }
  if (description && description.length > MAX_DESCRIPTION) {
    violations.push(tooLong('description', MAX_DESCRIPTION, description));
  }
  if (violations.length) throw DomainError.invalid(violations);
  return {
    displayName,
    percentage: new ExactDecimal(percentage).toString(),
    inclusive: fields.inclusive,
    country,
    jurisdiction,
    description,
  };
}

/** An edit's fields, trimmed (an empty description clears it); else a 422. */
export function validateTaxRateEdit(edit: TaxRateEdit): TaxRateEdit {
  const displayName = edit.displayName?.trim();
  const description = edit.description?.trim();
  const violations = displayNameViolations(displayName, false);
  if (description && description.length > MAX_DESCRIPTION) {
    violations.push(tooLong('description', MAX_DESCRIPTION, description));
  }
  if (violations.length) throw DomainError.invalid(violations);
  return { displayName, description, isActive: edit.isActive };
}

/**
 * The rate ids a subscription is given (`loc` where they were sent), lower case: at most
 * MAX_TAX_RATES, each once (a rate twice would tax twice); else a 422. Whether each exists, is the
 * project's and is active is for the caller to look up.
 */
export function checkTaxRateIds(ids: string[], loc: (string | number)[]): string[] {
  if (ids.length > MAX_TAX_RATES) {
    throw DomainError.invalid([
      {
        loc,
        msg: `List should have at most ${MAX_TAX_RATES} items after validation, not ${ids.length}`,
        type: 'too_long',
        ctx: { max_length: MAX_TAX_RATES, actual_length: ids.length },
      },
    ]);
  }
  const seen = new Set<string>();
  const violations: FieldViolation[] = [];
  const lower = ids.map((id) => id.toLowerCase());
  lower.forEach((id, index) => {
    if (seen.has(id)) {
      violations.push({ loc: [...loc, index], msg: 'Each tax rate may be given once', type: 'value_error', input: id });
    }
    seen.add(id);
  });
  if (violations.length) throw DomainError.invalid(violations);
  return lower;
}

/** The 400 of attaching a rate that was deactivated (it keeps applying where it already is). */
export const inactiveTaxRate = (rate: { id: string; displayName: string }) =>
  new DomainError(
    'failed_precondition',
    `The tax rate ${rate.displayName} (${rate.id}) is not active; an inactive rate can't be newly attached`,
  );

/**
 * The rates a subscription's next invoice uses: its own, or, when it has none of its own (null),
 * its plan's as the subscription kept them when it was made or moved to the plan (docs/api-behaviour.md
 * §21): a later change of the plan's rates is for new subscriptions, as a plan's price would be.
 */
export const taxRateIdsOfSubscription = (s: { taxRateIds: string[] | null; planTaxRateIds: string[] }): string[] =>
  s.taxRateIds ?? s.planTaxRateIds;

/** A customer's tax_exempt from a request: NONE, EXEMPT or REVERSE (any case); else a 422. */
export function parseTaxExempt(value: string): TaxExempt {
  const upper = value.toUpperCase();
  const known = TAX_EXEMPTIONS.find((exempt) => exempt === upper);
  if (known) return known;
  throw DomainError.invalid([
    { loc: ['body', 'tax_exempt'], msg: "Input should be 'NONE', 'EXEMPT' or 'REVERSE'", type: 'enum', input: value },
  ]);
}
