import { randomUUID } from 'node:crypto';
import type { Client, ClientPathsWithMethod, Middleware } from 'openapi-fetch';
import type { paths } from './generated/api';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

type PostPath = ClientPathsWithMethod<Client<paths>, 'post'>;

/** The POSTs whose operation declares the Idempotency-Key header in the document. */
type KeyedPostPath = {
  [P in PostPath]: paths[P]['post']['parameters'] extends { header?: infer H }
    ? [NonNullable<H>] extends [never]
      ? never
      : typeof IDEMPOTENCY_KEY_HEADER extends keyof NonNullable<H>
        ? P
        : never
    : never;
}[PostPath];

/**
 * The POSTs that ignore Idempotency-Key: the unauthenticated ones (docs/idempotency.md, "Which
 * requests"). A key sent there protects nothing, so the client neither sends one nor treats such a
 * request as safe to repeat. The type is derived from the generated document: a regenerated
 * document that adds an unkeyed POST, or starts taking the key on one of these, fails the build
 * here until this table says the same.
 */
const POSTS_IGNORING_THE_KEY: Record<Exclude<PostPath, KeyedPostPath>, true> = {
  '/api/v1/auth/register': true,
  '/api/v1/auth/login': true,
  '/api/v1/payments/paystack/webhook': true,
};

const takesIdempotencyKey = (schemaPath: string): boolean => !(schemaPath in POSTS_IGNORING_THE_KEY);

/**
 * Gives every POST that takes one an Idempotency-Key (a fresh UUID) unless the caller set its own,
 * before the first attempt, so every retry of the request carries the same key.
 */
export const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.method !== 'POST' || !takesIdempotencyKey(schemaPath)) return undefined;
    if (!request.headers.has(IDEMPOTENCY_KEY_HEADER)) request.headers.set(IDEMPOTENCY_KEY_HEADER, randomUUID());
    return request;
  },
};
