/**
 * The SDK's generated files are committed: packages/sdk/openapi.json (the document the gateway
 * serves at /openapi.json) and src/generated/api.ts (openapi-typescript's types of it). This test
 * fails when either is stale: it builds the document from the gateway's route table as
 * `npm run sdk:generate` does and compares it with the committed one byte for byte, then runs the
 * package's own `generate:types` command with openapi-typescript's `--check`. Fix a failure with
 * `npm run sdk:generate` and commit the result.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { publishedOpenApiJson } from '@billing/gateway/dist/openapi/published-document';

const ROOT = resolve(__dirname, '../../..');
const SDK_DIR = resolve(__dirname, '..');
const FIX = 'run `npm run sdk:generate` and commit the result';

/** The first line where two texts differ (1-based), for a message a reader can act on. */
function firstDifferentLine(committed: string, fresh: string): number {
  const a = committed.split('\n');
  const b = fresh.split('\n');
  const index = a.findIndex((line, i) => line !== b[i]);
  return (index === -1 ? a.length : index) + 1;
}

describe('the generated SDK', () => {
  it("packages/sdk/openapi.json is the document the gateway's route table builds", () => {
    const committed = readFileSync(join(SDK_DIR, 'openapi.json'), 'utf8');
    const fresh = publishedOpenApiJson();
    if (committed !== fresh) {
      throw new Error(
        `packages/sdk/openapi.json is stale (first difference at line ${firstDifferentLine(committed, fresh)}): ${FIX}`,
      );
    }
  });

  it('src/generated/api.ts is what openapi-typescript writes from it, with the options of generate:types', () => {
    const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const [command, ...args] = manifest.scripts['generate:types'].split(/\s+/);
    expect(command).toBe('openapi-typescript');
    try {
      execFileSync(join(ROOT, 'node_modules', '.bin', command), [...args, '--check'], {
        cwd: SDK_DIR,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`packages/sdk/src/generated/api.ts is stale: ${FIX}\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
    }
  });
});
