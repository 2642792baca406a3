import type { Request } from 'express';

/**
 * A form's and a query string's fields as the API's JSON bodies and queries take them. Only the
 * shape changes here (text to number, checkbox to boolean, repeated field to list); every rule is
 * the route's own schema's, which validates what these give.
 */

/** A single non-empty text field; a list (a field sent twice) or an empty one is absent. */
export const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** The posted form: urlencoded fields, text or lists of text. */
export const formOf = (req: Request): Record<string, unknown> => (req.body ?? {}) as Record<string, unknown>;

/** A money or number field: its number, or the text itself so that the route's schema names the mistake. */
export function numberOf(value: unknown): number | string | undefined {
  const text = textOf(value);
  if (text === undefined) return undefined;
  // Digits with an optional decimal part only: "1e3" or "0x10" are not amounts a person types.
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

/** A checkbox: sent ("true") when ticked, absent otherwise. */
export const checkedOf = (value: unknown): boolean => value === 'true';

/** A field sent once per ticked box (plan_ids): always a list. */
export const listOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is string => typeof v === 'string');

/** The query of a request: its single text fields (filters and paging). */
export const queryText = (req: Request, name: string): string | undefined => textOf(req.query[name]);
