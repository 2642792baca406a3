import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { BoundedConcurrency } from '@billing/platform';

/** scrypt's parameters; they travel with each hash, so a hash verifies whatever the current cost. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** log2 of OWASP's minimum scrypt cost (N=2^17, r=8, p=1): the cost production runs with. */
export const PRODUCTION_SCRYPT_COST = 17;

/** The hashing parameters for a cost (log2 N). */
export const scryptParams = (cost: number): ScryptParams => ({ N: 2 ** cost, r: 8, p: 1 });

const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Returns `scrypt$N$r$p$<salt b64>$<hash b64>`; the parameters travel with the hash. */
export async function hashPassword(
  password: string,
  params: ScryptParams = scryptParams(PRODUCTION_SCRYPT_COST),
): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Each scrypt above holds 128 MiB while it runs, so hashing is bounded per process: at most
 * PASSWORD_HASHES_AT_ONCE at a time and a short queue; a burst beyond that is refused with
 * `resource_exhausted` (429) instead of growing identity past its memory limit (k8s/base/identity.yaml).
 */
export const PASSWORD_HASHES_AT_ONCE = 2;

export class PasswordHasher {
  private readonly gate: BoundedConcurrency;
  private readonly params: ScryptParams;
  private dummyHash?: Promise<string>;

  /** `cost` is log2 of scrypt's N (PASSWORD_SCRYPT_COST; below 17 only where NODE_ENV=test). */
  constructor(queueLength: number, cost = PRODUCTION_SCRYPT_COST) {
    this.params = scryptParams(cost);
    this.gate = new BoundedConcurrency(
      PASSWORD_HASHES_AT_ONCE,
      queueLength,
      'Too many password checks in progress; retry in a moment',
    );
  }

  hash(password: string): Promise<string> {
    return this.gate.run(() => hashPassword(password, this.params));
  }

  verify(password: string, stored: string): Promise<boolean> {
    return this.gate.run(() => verifyPassword(password, stored));
  }

  /** Spends the same time as a real check, so an unknown email is not told apart by timing. */
  verifyAgainstDummy(password: string): Promise<false> {
    return this.gate.run(async (): Promise<false> => {
      this.dummyHash ??= hashPassword('not-a-real-password', this.params);
      await verifyPassword(password, await this.dummyHash);
      return false;
    });
  }
}
