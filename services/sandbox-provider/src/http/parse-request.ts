import type { z } from 'zod';
import { DomainError } from '@billing/platform';

/**
 * Validates a body or query against a schema; the first problem becomes Paystack's style of
 * answer, a 400 whose message names it (the schemas carry Paystack's own wording).
 */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.');
  const message = issue?.message ?? 'Invalid request';
  throw new DomainError('invalid_argument', field && !message.includes(field) ? `${field}: ${message}` : message);
}
