import { createHash, randomInt } from 'node:crypto';

export const TEST_KEY_PREFIX = 'svc_test_';
export const LIVE_KEY_PREFIX = 'svc_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 40 base62 characters = ~238 bits, well above the 32-character minimum of docs/api-behaviour.md §3. */
const SECRET_LENGTH = 40;

export interface GeneratedApiKey {
  key: string;
  keyHash: string;
  keyPrefix: string;
  last4: string;
}

export function generateApiKey(isLive: boolean): GeneratedApiKey {
  const keyPrefix = isLive ? LIVE_KEY_PREFIX : TEST_KEY_PREFIX;
  let secret = '';
  // randomInt draws uniformly (no modulo bias).
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(BASE62.length)];
  const key = keyPrefix + secret;
  return { key, keyHash: hashApiKey(key), keyPrefix, last4: key.slice(-4) };
}

/**
 * Keys are high-entropy random strings, so a fast unsalted SHA-256 is enough to make a stolen
 * table useless, and it keeps verification one indexed lookup by hash.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function looksLikeApiKey(key: string): boolean {
  return (key.startsWith(TEST_KEY_PREFIX) || key.startsWith(LIVE_KEY_PREFIX)) && key.length <= 200;
}

export function defaultKeyName(isLive: boolean): string {
  return isLive ? 'Live key' : 'Test key';
}
