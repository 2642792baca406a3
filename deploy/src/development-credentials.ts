import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDevelopmentCertificates, serviceTlsFiles } from '@billing/platform/dev-tls';
// The module alone, not the package's index, which reads the infrastructure's addresses when
// it loads (see runLanes in runner.ts).
import { PLATFORM_PROCESSES } from '@billing/testing/dist/platform-processes';

/**
 * A development secret (JWT_SECRET, DOCUMENT_LINKS_KEY), generated once and kept in .data/ so
 * tokens and links survive restarts.
 */
export function developmentSecret(repoRoot: string, file: string): { secret: string; path: string; created: boolean } {
  const path = join(repoRoot, '.data', file);
  const existing = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
  // The `dev-` prefix lets identity and billing refuse this secret when NODE_ENV=production.
  if (existing.startsWith('dev-') && existing.length >= 32) return { secret: existing, path, created: false };
  const secret = `dev-${randomBytes(32).toString('hex')}`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return { secret, path, created: true };
}

/**
 * gRPC mutual TLS for `npm start` (docs/decisions.md, "Internal authentication"): unless the
 * caller set GRPC_TLS_* or GRPC_INSECURE, a development CA and one certificate per process,
 * made once into .data/dev-tls/; answers each process's GRPC_TLS_* files (none when the
 * caller set them).
 */
export async function developmentTls(
  repoRoot: string,
  env: NodeJS.ProcessEnv,
  log: (message: string) => void,
): Promise<(service: string) => Record<string, string>> {
  if (env.GRPC_TLS_CA_FILE || env.GRPC_TLS_CERT_FILE || env.GRPC_TLS_KEY_FILE || env.GRPC_INSECURE) return () => ({});
  const dir = join(repoRoot, '.data', 'dev-tls');
  await ensureDevelopmentCertificates(
    dir,
    PLATFORM_PROCESSES.map((spec) => spec.name),
  );
  log(`gRPC mutual TLS with the development certificates in ${dir}`);
  return (service) => ({ ...serviceTlsFiles(dir, service) });
}
