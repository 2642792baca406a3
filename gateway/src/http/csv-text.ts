import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';

/** The media type of a route's CSV answer (RouteResponse.alsoAs). */
export const CSV_MEDIA_TYPE = 'text/csv';

/**
 * The columns of a route's CSV answer: the field names of its schema's items, in the schema's
 * order, so a CSV line says the same as the JSON item. Only an array of objects has them; any
 * other schema is a programming error, found when the routes are mounted or documented.
 */
export function csvColumnsOf(schema: z.ZodType | undefined, operationId: string): string[] {
  if (schema instanceof z.ZodArray && schema.element instanceof z.ZodObject) return Object.keys(schema.element.shape);
  throw new Error(`${operationId}: a CSV answer needs a schema that is an array of objects`);
}

/**
 * RFC 4180 text: a header row of `columns`, then one line per item, CRLF after each; a field
 * with a comma, a quote or a line break is quoted. Numbers are written as JSON writes them
 * (money in major units, 1234.5), so the CSV and the JSON of one answer carry the same figures.
 */
export function csvText(columns: readonly string[], items: readonly Record<string, unknown>[]): string {
  return stringify(items as Record<string, unknown>[], {
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    cast: { number: (value) => JSON.stringify(value) },
  });
}
