import type { Request } from 'express';
import type { FieldViolation } from '@billing/platform';
import type { z } from 'zod';
import { HttpError, RequestValidationError } from './http-error';

type Location = 'body' | 'query' | 'path';
type Issue = z.core.$ZodIssue;

/**
 * Values a client should not see echoed back (a 422 body may end up in a proxy's or a
 * browser's logs), whatever pydantic would do.
 */
const SECRET_FIELDS = new Set(['password', 'current_password', 'key', 'secret']);

const TYPE_ERRORS: Record<string, { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  number: { type: 'float_type', msg: 'Input should be a valid number' },
  int: { type: 'int_type', msg: 'Input should be a valid integer' },
  array: { type: 'list_type', msg: 'Input should be a valid list' },
  object: { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
  record: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
};

/** Walks `path` into `root`: whether the last key is present, and its value. */
function lookup(root: unknown, path: PropertyKey[]): { present: boolean; value: unknown } {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !(key in value)) return { present: false, value: undefined };
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { present: value !== undefined, value };
}

function withInput(violation: FieldViolation, path: PropertyKey[], input: unknown): FieldViolation {
  const field = path[path.length - 1];
  if (typeof field === 'string' && SECRET_FIELDS.has(field)) return violation;
  return { ...violation, input };
}

/** One zod issue as one FastAPI/pydantic-style item: loc, msg, type, input, ctx. */
function toViolation(issue: Issue, location: Location, root: unknown): FieldViolation {
  const loc = [location, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
  const { present, value } = lookup(root, issue.path);
  // An absent field fails its type check, every branch of its union (string | number fields), or
  // its enum (zod reports that as invalid_value).
  if (!present && (issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'invalid_value')) {
    return { loc, msg: 'Field required', type: 'missing' };
  }
  const item = (type: string, msg: string, ctx?: Record<string, unknown>) =>
    withInput({ loc, msg, type, ...(ctx ? { ctx } : {}) }, issue.path, value);

  switch (issue.code) {
    case 'invalid_type': {
      const known = TYPE_ERRORS[issue.expected] ?? { type: `${issue.expected}_type`, msg: issue.message };
      return item(known.type, known.msg);
    }
    case 'too_small': {
      const n = Number(issue.minimum);
      if (issue.origin === 'string')
        return item('string_too_short', `String should have at least ${n} character${n === 1 ? '' : 's'}`, {
          min_length: n,
        });
      if (issue.origin === 'array')
        return item('too_short', `List should have at least ${n} item${n === 1 ? '' : 's'}`, { min_length: n });
      return issue.inclusive
        ? item('greater_than_equal', `Input should be greater than or equal to ${n}`, { ge: n })
        : item('greater_than', `Input should be greater than ${n}`, { gt: n });
    }
    case 'too_big': {
      const n = Number(issue.maximum);
      if (issue.origin === 'string')
        return item('string_too_long', `String should have at most ${n} character${n === 1 ? '' : 's'}`, {
          max_length: n,
        });
      if (issue.origin === 'array')
        return item('too_long', `List should have at most ${n} item${n === 1 ? '' : 's'}`, { max_length: n });
      return issue.inclusive
        ? item('less_than_equal', `Input should be less than or equal to ${n}`, { le: n })
        : item('less_than', `Input should be less than ${n}`, { lt: n });
    }
    case 'invalid_format':
      if (issue.format === 'email') return item('value_error', 'value is not a valid email address');
      if (issue.format === 'uuid' || issue.format === 'guid')
        return item('uuid_parsing', 'Input should be a valid UUID');
      return item('string_pattern_mismatch', issue.message);
    case 'invalid_value':
      return item('enum', `Input should be ${issue.values.map((v) => `'${String(v)}'`).join(', ')}`, {
        expected: issue.values.map(String).join(', '),
      });
    case 'custom': {
      const type = typeof issue.params?.type === 'string' ? issue.params.type : 'value_error';
      // A custom "missing" names an absent field, so there is no input to echo.
      return type === 'missing' ? { loc, msg: issue.message, type } : item(type, issue.message);
    }
    default:
      return item('value_error', issue.message);
  }
}

export function violationsOf(error: z.ZodError, location: Location, input: unknown): FieldViolation[] {
  return error.issues.map((issue) => toViolation(issue, location, input));
}

/** Path ids: anything that cannot name a record is a 404 (docs/api-behaviour.md §1), never a 422 or 500. */
export function parsePath<S extends z.ZodType>(schema: S, params: unknown): z.output<S> {
  const result = schema.safeParse(params);
  if (!result.success) throw new HttpError(404, result.error.issues[0]?.message ?? 'Not Found');
  return result.data;
}

/**
 * Query and body together, so that a client sees every problem of its request at once.
 * Body problems found while reading it (malformed JSON, not JSON) come from `readJsonBody`.
 */
export function parseRequest<Q extends z.ZodType, B extends z.ZodType>(
  req: { query?: unknown; body?: unknown },
  schemas: { query?: Q; body?: B },
): { query: z.output<Q> | undefined; body: z.output<B> | undefined } {
  const violations: FieldViolation[] = [];
  let query: z.output<Q> | undefined;
  let body: z.output<B> | undefined;
  if (schemas.query) {
    const given = req.query ?? {};
    const result = schemas.query.safeParse(given);
    if (result.success) query = result.data;
    else violations.push(...violationsOf(result.error, 'query', given));
  }
  if (schemas.body) {
    const problem = bodyProblemOf(req);
    if (problem) violations.push(problem);
    else {
      const result = schemas.body.safeParse(req.body);
      if (result.success) body = result.data;
      else violations.push(...violationsOf(result.error, 'body', req.body));
    }
  }
  if (violations.length > 0) throw new RequestValidationError(violations);
  return { query, body };
}

const BODY_PROBLEM = Symbol('bodyProblem');

type RequestWithProblem = Request & { [BODY_PROBLEM]?: FieldViolation };

/** Recorded while reading, reported only by routes that take a body (a stray body elsewhere is ignored). */
export function recordBodyProblem(req: Request, problem: FieldViolation): void {
  (req as RequestWithProblem)[BODY_PROBLEM] = problem;
}

function bodyProblemOf(req: object): FieldViolation | undefined {
  return (req as RequestWithProblem)[BODY_PROBLEM];
}
