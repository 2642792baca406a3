import { z } from 'zod';

/** ISO 8601, UTC (contract section 1). */
export const timestamp = z.iso.datetime();

/** A path id; anything that is not an id cannot name a record, so it answers 404 with this detail. */
export const idParam = (what: string) => z.guid({ error: `${what} not found` }).meta({ description: `${what} id` });

/** Names of projects and keys, as identity accepts them. */
export const displayName = z.string().trim().min(1).max(200);

/** Identity always sets these; a reply without one is identity's bug, answered as a 500. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`identity reply without ${what}`);
  return value;
}

export const iso = (date: Date | undefined, what = 'created_at'): string => required(date, what).toISOString();
