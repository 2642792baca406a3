import fc from 'fast-check';
import type { RawRequest } from './raw-http';

/** The parts of an OpenAPI 3.1 document the generator reads. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
}

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema?: JsonSchema;
}

interface OperationObject {
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface Operation {
  method: string;
  path: string;
  operation: OperationObject;
}

/** Valid credentials and real ids, so that some generated requests get past auth and lookups. */
export interface Fixtures {
  testKey: string;
  liveKey: string;
  token: string;
  otherToken: string;
  /** Real ids by path or query parameter name (plan_id, customer_id, code, ...). */
  ids: Record<string, string>;
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

const printable = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

/** Path segments and query values that do not decode, or decode into something odd. */
const MALFORMED_ESCAPES = [
  '%',
  '%E0%A4%A',
  '%zz',
  '%C0%80',
  '%ED%A0%80',
  '%00',
  '%2F',
  '%2e%2e',
  '..',
  'a%20b',
  '%FF%FE',
  '%25',
];
const HUGE = 'x'.repeat(200_000);

function nest(depth: number, array: boolean): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = array ? [value] : { a: value };
  return value;
}

/** JSON nested far deeper than the 32 levels the gateway takes, sometimes within them. */
const deeplyNested = fc
  .tuple(fc.integer({ min: 20, max: 600 }), fc.boolean())
  .map(([depth, array]) => nest(depth, array));

const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, '', ' ', '1e3', 'null', '0x10', 'NaN'),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<unknown>([], {}, [1, 'a'], { __proto__: { polluted: true } }, { constructor: { prototype: 1 } }),
  fc.integer({ min: 1000, max: 300_000 }).map((n) => 'é'.repeat(n)),
  deeplyNested,
);

function resolve(schema: JsonSchema, doc: OpenApiDocument): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    current = doc.components.schemas[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return current;
}

function stringFor(schema: JsonSchema, name: string, fixtures: Fixtures): fc.Arbitrary<unknown> {
  const real = fixtures.ids[name];
  const candidates: fc.Arbitrary<unknown>[] = [fc.string({ maxLength: 30 }), fc.constantFrom(...MALFORMED_ESCAPES)];
  if (real) candidates.push(fc.constant(real));
  if (schema.format === 'uuid') candidates.push(fc.uuid());
  if (schema.format === 'date-time') candidates.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
  if (schema.format === 'email') candidates.push(fc.emailAddress());
  if (schema.format === 'uri') candidates.push(fc.webUrl());
  return fc.oneof(...candidates);
}

/** A value following `schema` most of the time, and anything at all (wrong types, huge, deep) otherwise. */
function valueFor(schema: JsonSchema, doc: OpenApiDocument, fixtures: Fixtures, name: string, depth: number) {
  const s = resolve(schema, doc);
  const typed = typedValueFor(s, doc, fixtures, name, depth);
  return fc.oneof({ weight: 4, arbitrary: typed }, { weight: 1, arbitrary: junk });
}

function typedValueFor(
  s: JsonSchema,
  doc: OpenApiDocument,
  fixtures: Fixtures,
  name: string,
  depth: number,
): fc.Arbitrary<unknown> {
  if (depth > 4) return junk;
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf ?? s.allOf;
  if (branches && branches.length > 0) {
    return fc.oneof(...branches.map((b) => typedValueFor(resolve(b, doc), doc, fixtures, name, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return stringFor(s, name, fixtures);
    case 'integer':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, 1e21));
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0.1, 1e3, 1e-7, 5000.5));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(s.items ?? {}, doc, fixtures, name, depth + 1), { maxLength: 3 });
    case 'object': {
      const properties = s.properties ?? {};
      const model = Object.fromEntries(
        Object.entries(properties).map(([key, prop]) => [key, valueFor(prop, doc, fixtures, key, depth + 1)]),
      );
      return fc.record(model, { requiredKeys: [] });
    }
    default:
      return junk;
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json;;',
  '*/*',
  'nonsense',
];

const MALFORMED_JSON = ['{', '{"a":', '[', '{"a":1}x', '\ufeff{}', 'nul', '{"a":1,}', "{'a':1}", '{"a":"\\u12"}'];

/**
 * A body for `op`. An operation that takes none gets small ones only: the gateway answers it
 * without reading the body and closes, so a megabyte still being written would end in the
 * client's EPIPE instead of the answer (an artefact of the client, not of the gateway).
 */
function bodyFor(op: Operation, doc: OpenApiDocument, fixtures: Fixtures): fc.Arbitrary<string | undefined> {
  const schema = op.operation.requestBody?.content['application/json']?.schema;
  const fromSchema = schema
    ? typedValueFor(resolve(schema, doc), doc, fixtures, 'body', 0).map((v) => JSON.stringify(v))
    : fc.constant(undefined);
  return fc.oneof(
    { weight: 6, arbitrary: fromSchema },
    { weight: 1, arbitrary: junk.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_JSON) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        JSON.stringify({ pad: op.operation.requestBody ? HUGE.repeat(6) : 'x' }),
      ),
    },
  );
}

function credentialsFor(op: Operation, fixtures: Fixtures): fc.Arbitrary<Record<string, string>> {
  const schemes = new Set((op.operation.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const valid: Record<string, string> = {
    ...(schemes.has('ApiKey') ? { 'x-api-key': fixtures.testKey } : {}),
    ...(schemes.has('BearerAuth') ? { authorization: `Bearer ${fixtures.token}` } : {}),
  };
  const variants: Record<string, string>[] = [
    {},
    { 'x-api-key': fixtures.liveKey },
    { 'x-api-key': 'svc_test_' },
    { 'x-api-key': `${fixtures.testKey}x` },
    { 'x-api-key': 'k'.repeat(6000) },
    { 'x-api-key': fixtures.testKey, 'X-API-KEY': fixtures.liveKey },
    { authorization: 'Bearer' },
    { authorization: 'Bearer ' },
    { authorization: 'Basic Zm9vOmJhcg==' },
    { authorization: `Bearer ${fixtures.otherToken}` },
    { authorization: `bearer  ${fixtures.token}` },
    { authorization: `Bearer ${fixtures.token}.x` },
    { authorization: 'Bearer a.b.c' },
    { authorization: 'Bearer e30.e30.' },
    { authorization: `Bearer ${'a'.repeat(6000)}` },
    { ...valid, authorization: 'Bearer %E0%A4%A' },
  ];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(valid) },
    { weight: 3, arbitrary: fc.constantFrom(...variants) },
    { weight: 1, arbitrary: fc.record({ authorization: printable(60), 'x-api-key': printable(60) }) },
  );
}

const extraHeaders = fc.record(
  {
    'idempotency-key': fc.oneof(printable(40), printable(300)),
    'x-request-id': printable(200),
    accept: fc.constantFrom('text/html', '*/*', 'application/xml', ';;'),
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'bogus'),
    'x-forwarded-for': printable(40),
    'x-paystack-signature': printable(130),
  },
  { requiredKeys: [] },
);

function segment(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // The malformed escapes go as they are; anything else is escaped as a client would.
  return MALFORMED_ESCAPES.includes(text) ? text : encodeURIComponent(text);
}

function queryFor(op: Operation, doc: OpenApiDocument, fixtures: Fixtures): fc.Arbitrary<string> {
  const params = (op.operation.parameters ?? []).filter((p) => p.in === 'query');
  const documented = fc.tuple(
    ...params.map((p) =>
      fc.option(
        fc.oneof(
          typedValueFor(resolve(p.schema ?? {}, doc), doc, fixtures, p.name, 3),
          fc.constantFrom(...MALFORMED_ESCAPES),
          fc.string({ maxLength: 20 }),
        ),
        { nil: undefined },
      ),
    ),
  );
  const extras = fc.constantFrom(
    '',
    '',
    '%',
    'a[b][c]=1',
    'limit=1&limit=2',
    'limit[]=1',
    '__proto__[x]=1',
    `${'q'.repeat(2000)}=1`,
    '&&&=&',
    'starting_after=%E0%A4%A',
  );
  return fc.tuple(documented, extras).map(([values, extra]) => {
    const pairs = params.flatMap((p, i) => (values[i] === undefined ? [] : [`${p.name}=${segment(values[i])}`]));
    if (extra) pairs.push(extra);
    return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
  });
}

function pathFor(op: Operation, fixtures: Fixtures): fc.Arbitrary<string> {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const values = names.map((name) => {
    const real = fixtures.ids[name];
    return fc.oneof(
      { weight: 3, arbitrary: real ? fc.constant(real) : fc.uuid() },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_ESCAPES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: fc.constantFrom('x'.repeat(2000), '0', '-1', 'null', 'undefined') },
    );
  });
  return fc.tuple(...values).map((vs) => {
    let i = 0;
    return op.path.replace(/\{\w+\}/g, () => segment(vs[i++]));
  });
}

/**
 * Requests for one operation of the document: malformed and well-formed mixed. The request line
 * and headers stay under node's 16 KiB limit (the test of 431 sends them alone): past it the
 * gateway answers 431 and closes while a body is still being written, which node's client reports
 * as EPIPE instead of the answer.
 */
export function requestsFor(op: Operation, doc: OpenApiDocument, fixtures: Fixtures): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      path: pathFor(op, fixtures),
      query: queryFor(op, doc, fixtures),
      credentials: credentialsFor(op, fixtures),
      extra: extraHeaders,
      contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 6 }),
      body: op.operation.requestBody ? bodyFor(op, doc, fixtures) : fc.option(bodyFor(op, doc, fixtures), { freq: 8 }),
    })
    .map(({ path, query, credentials, extra, contentType, body }) => {
      const headers: Record<string, string> = { ...credentials, ...extra };
      if (body !== undefined && body !== null) headers['content-type'] = contentType ?? 'application/json';
      return { method: op.method, path: `${path}${query}`, headers, body: body ?? undefined };
    });
}

/** Why an answer breaks the rule (no 5xx; a 4xx carries {"detail"}, a 422 in the published shape), or null. */
export function answerProblem(status: number, text: string): string | null {
  if (status >= 500 || status < 100) return `status ${status}`;
  if (status < 400) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${status} without a JSON body`;
  }
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (status !== 422) return typeof detail === 'string' && detail.length > 0 ? null : `status ${status} without detail`;
  if (!Array.isArray(detail) || detail.length === 0) return '422 whose detail is not a non-empty array';
  const bad = detail.find(
    (item: { loc?: unknown; msg?: unknown; type?: unknown }) =>
      !Array.isArray(item.loc) ||
      !item.loc.every((p) => typeof p === 'string' || Number.isInteger(p)) ||
      typeof item.msg !== 'string' ||
      typeof item.type !== 'string',
  );
  return bad ? `422 item not in the published shape: ${JSON.stringify(bad)}` : null;
}
