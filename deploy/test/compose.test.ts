/**
 * deploy/compose.yaml as docs/deployment.md runs it: with the deploy/.env that
 * deploy/compose-env.sh writes, every process of the platform starts on the environment compose
 * gives it (NODE_ENV=production, so no development default of a secret is accepted).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { configModuleOf, REPOSITORY, runConfigLoaders, type ConfigCheck } from './support/manifests';

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}/g,
    (_match, variable: string, operator?: string, operand = '') => {
      const set = env[variable] !== undefined && (env[variable] !== '' || !operator?.startsWith(':'));
      if (set) return env[variable];
      if (operator?.endsWith('?')) throw new Error(`compose refuses to start: ${variable}: ${operand}`);
      return operator ? operand : '';
    },
  );
}

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number>;
}

/** What compose gives each container of the platform image, interpolated with `env`. */
function platformChecks(env: Record<string, string>): ConfigCheck[] {
  const compose = parse(readFileSync(path.join(REPOSITORY, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  return Object.entries(compose.services)
    .filter(([, service]) => service.image === 'billing-platform:local')
    .map(([name, service]) => ({
      label: name,
      configModule: configModuleOf(service.command![0]),
      env: Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(String(value), env)]),
      ),
    }));
}

describe('compose', () => {
  let envFile: Record<string, string>;

  beforeAll(() => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'compose-env-'));
    try {
      const file = path.join(scratch, '.env');
      execFileSync(path.join(REPOSITORY, 'deploy/compose-env.sh'), [file], { stdio: 'pipe' });
      envFile = Object.fromEntries(
        readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('starts every process on the environment compose gives it with deploy/.env', () => {
    const checks = platformChecks(envFile);
    expect(checks.map((check) => check.label)).toEqual(
      expect.arrayContaining([
        'identity',
        'catalog',
        'billing',
        'policy',
        'notification',
        'sandbox-provider',
        'gateway',
      ]),
    );
    const refused = Object.entries(runConfigLoaders(checks)).filter(([, message]) => message !== null);
    expect(refused).toEqual([]);
  });

  it('refuses to start, naming the variable, when deploy/.env lacks one of its secrets', () => {
    for (const missing of Object.keys(envFile)) {
      const env = Object.fromEntries(Object.entries(envFile).filter(([key]) => key !== missing));
      expect(() => platformChecks(env)).toThrow(missing);
    }
  });
});
