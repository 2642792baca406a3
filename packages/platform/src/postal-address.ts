import type { FieldViolation } from './errors';

/**
 * The longest part of a postal address (characters, after trimming); each present part has at
 * least one. Addresses are the seller's and, later, the buyer's on invoices (docs/api-behaviour.md
 * §22): the gateway checks a request with these numbers and the service that keeps the address
 * checks it again, so both answer the same 422.
 */
export const POSTAL_ADDRESS_LIMITS = {
  line1: 200,
  line2: 200,
  city: 200,
  state: 200,
  postal_code: 20,
} as const;

/**
 * The officially assigned codes of ISO 3166-1 alpha-2 (249), upper case: an address's
 * `country`.
 */
const ISO_COUNTRY_CODES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW ' +
    'BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI ' +
    'FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN ' +
    'IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME ' +
    'MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF ' +
    'PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV ' +
    'SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE ' +
    'YT ZA ZM ZW'
  ).split(' '),
);

/** Whether `code` is an assigned ISO 3166-1 alpha-2 code written in upper case (`NG`, not `ng`). */
export const isCountryCode = (code: string): boolean => ISO_COUNTRY_CODES.has(code);

/** The words of a refused country code, the same in the gateway and in the services. */
export const COUNTRY_CODE_MESSAGE = 'Input should be an ISO 3166-1 alpha-2 country code in upper case (e.g. NG)';

/**
 * A postal address in the API's shape: `line1`, `city` and `country` (ISO 3166-1 alpha-2), and
 * `line2`, `state` and `postal_code`, null when not given.
 */
export type PostalAddress = Record<'line1' | 'city' | 'country', string> &
  Record<'line2' | 'state' | 'postal_code', string | null>;

/** An address as a request gives it: optional parts absent or null. */
export type PostalAddressInput = Pick<PostalAddress, 'line1' | 'city' | 'country'> & Partial<PostalAddress>;

/** The common.v1.PostalAddress message as ts-proto types it: camelCase, an optional part unset. */
export type PostalAddressMessage = Record<'line1' | 'city' | 'country', string> &
  Partial<Record<'line2' | 'state' | 'postalCode', string>>;

type Loc = (string | number)[];

/** The 422 item of a text empty after trimming or longer than `max` once trimmed, else null. */
export function textLengthViolation(value: string, loc: Loc, max: number): FieldViolation | null {
  const length = value.trim().length;
  if (length < 1) {
    return {
      loc,
      msg: 'String should have at least 1 character',
      type: 'string_too_short',
      input: value,
      ctx: { min_length: 1 },
    };
  }
  if (length > max) {
    return {
      loc,
      msg: `String should have at most ${max} characters`,
      type: 'string_too_long',
      input: value,
      ctx: { max_length: max },
    };
  }
  return null;
}

/** Every problem of an address, at `loc` + the part's name (`["body", "address", "country"]`). */
export function postalAddressViolations(address: PostalAddressInput, loc: Loc): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const part of ['line1', 'line2', 'city', 'state', 'postal_code'] as const) {
    const value = address[part];
    if (value === undefined || value === null) continue;
    const violation = textLengthViolation(value, [...loc, part], POSTAL_ADDRESS_LIMITS[part]);
    if (violation) violations.push(violation);
  }
  if (!isCountryCode(address.country)) {
    violations.push({
      loc: [...loc, 'country'],
      msg: COUNTRY_CODE_MESSAGE,
      type: 'value_error',
      input: address.country,
    });
  }
  return violations;
}

/**
 * An address a request sends, as it is kept (postalAddressOf); undefined when it breaks a rule,
 * its problems pushed onto `violations` (at `loc` + the part's name).
 */
export function checkedPostalAddress(
  address: PostalAddressInput,
  loc: Loc,
  violations: FieldViolation[],
): PostalAddress | undefined {
  const problems = postalAddressViolations(address, loc);
  violations.push(...problems);
  return problems.length === 0 ? postalAddressOf(address) : undefined;
}

/** The address as it is kept: parts trimmed, optional parts not given null. */
export const postalAddressOf = (address: PostalAddressInput): PostalAddress => ({
  line1: address.line1.trim(),
  line2: address.line2?.trim() ?? null,
  city: address.city.trim(),
  state: address.state?.trim() ?? null,
  postal_code: address.postal_code?.trim() ?? null,
  country: address.country,
});

/** An address for a gRPC message. */
export const postalAddressMessage = (address: PostalAddressInput): PostalAddressMessage => ({
  line1: address.line1,
  line2: address.line2 ?? undefined,
  city: address.city,
  state: address.state ?? undefined,
  postalCode: address.postal_code ?? undefined,
  country: address.country,
});

/** An address of a gRPC message in the API's shape. */
export const postalAddressOfMessage = (message: PostalAddressMessage): PostalAddress =>
  postalAddressOf({ ...message, postal_code: message.postalCode });
