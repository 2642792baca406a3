import { randomUUID } from 'node:crypto';
import {
  createReplica,
  PlatformProcess,
  startPlatform,
  type PlatformUnderTest,
  type StartOptions,
} from '@billing/testing';

/** Response bodies are asserted field by field, so an open JSON type is the honest one here. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

export interface RequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, with `contentType` (default application/json). */
  raw?: string;
  contentType?: string;
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

export type Api = (method: string, path: string, options?: RequestOptions) => Promise<ApiResponse>;

/** A plain HTTP client of the gateway, as a merchant's code would call it. */
export function gatewayApi(baseUrl: string): Api {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.raw !== undefined) {
      body = options.raw;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: Json = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
}

/** Identity and the gateway only: nothing in these tests needs the other services. */
export function startGatewayPlatform(env: Record<string, string> = {}): Promise<PlatformUnderTest> {
  const options: StartOptions = { only: ['identity', 'gateway'], env };
  return startPlatform(options);
}

/** One more gateway process of a running platform (another replica), with `env` on top of the platform's. */
export async function startGatewayReplica(
  platform: Pick<PlatformUnderTest, 'env' | 'tlsFiles'>,
  env: Record<string, string> = {},
): Promise<{ process: PlatformProcess; url: string }> {
  const replica = await createReplica(platform, 'gateway', env);
  await replica.process.start();
  return { process: replica.process, url: `http://127.0.0.1:${replica.port}` };
}

export const uniqueEmail = (label = 'merchant') => `${label}-${randomUUID().slice(0, 8)}@example.com`;

export interface RegisteredMerchant {
  id: string;
  email: string;
  password: string;
  token: string;
  projectId: string;
  testKey: string;
  liveKey: string;
  registration: Json;
}

export async function registerMerchant(api: Api, label = 'merchant'): Promise<RegisteredMerchant> {
  const email = uniqueEmail(label);
  const password = `pw-${randomUUID()}`;
  const res = await api('POST', '/api/v1/auth/register', { body: { email, business_name: `${label} Ltd`, password } });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  const [test, live] = res.body.api_keys;
  const projects = await api('GET', '/api/v1/projects', { token: res.body.access_token });
  return {
    id: res.body.id,
    email,
    password,
    token: res.body.access_token,
    projectId: projects.body[0].id,
    testKey: test.key,
    liveKey: live.key,
    registration: res.body,
  };
}

/** Flips one character in the JWT's signature part, keeping it well-formed base64url. */
export function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split('.');
  const index = Math.floor(signature.length / 2);
  const flipped = signature[index] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, index)}${flipped}${signature.slice(index + 1)}`;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The answer of a POST that must create: 201, and its body. */
export async function createdBody(response: Promise<ApiResponse>): Promise<Json> {
  const res = await response;
  expect([res.status, res.text]).toEqual([201, expect.any(String)]);
  return res.body;
}

/**
 * The calls a merchant's server makes with its test key, on `/api/v1` paths. `api` is read at
 * each call, so a suite may make these before its platform has started.
 */
export function merchantCalls(api: () => Api) {
  const as = (m: RegisteredMerchant, headers?: Record<string, string>) => ({ apiKey: m.testKey, headers });
  return {
    post: (m: RegisteredMerchant, path: string, body: unknown = {}, headers?: Record<string, string>) =>
      api()('POST', `/api/v1${path}`, { ...as(m, headers), body }),
    patch: (m: RegisteredMerchant, path: string, body: unknown) => api()('PATCH', `/api/v1${path}`, { ...as(m), body }),
    get: (m: RegisteredMerchant, path: string) => api()('GET', `/api/v1${path}`, as(m)),
    del: (m: RegisteredMerchant, path: string) => api()('DELETE', `/api/v1${path}`, as(m)),
  };
}
