/**
 * The generated code in packages/proto/src/gen is committed (services import it without a
 * generation step). This test fails when it is stale: it runs the repository's own buf with the
 * plugins and options of proto/buf.gen.yaml into a temporary directory and compares the result
 * with the committed files byte for byte. Fix a failure with `npm run proto` and commit the result.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';

const ROOT = resolve(__dirname, '../../..');
const PROTO_DIR = join(ROOT, 'proto');
const BUF = join(ROOT, 'node_modules', '.bin', 'buf');

interface Plugin {
  local?: string | string[];
  out: string;
  [option: string]: unknown;
}

interface GenerateTemplate {
  version: string;
  plugins: Plugin[];
  [key: string]: unknown;
}

/** Every file under `dir`, as paths relative to it, sorted ([] when the directory is missing). */
function listFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

function runBuf(args: string[]): string {
  try {
    return execFileSync(BUF, args, { cwd: PROTO_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`buf ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

describe('generated protobuf code', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'proto-fresh-'));
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('passes buf lint', () => {
    runBuf(['lint']);
  });

  it('matches what buf generate produces from proto/ with the options of buf.gen.yaml', () => {
    const template = parse(readFileSync(join(PROTO_DIR, 'buf.gen.yaml'), 'utf8')) as GenerateTemplate;
    expect(template.plugins.length).toBeGreaterThan(0);

    // Same template, same plugin options; only the output directories move to the scratch
    // directory, and relative plugin paths are made absolute (they are relative to proto/).
    const targets: { committed: string; generated: string }[] = [];
    const plugins = template.plugins.map((plugin, index) => {
      const generated = join(scratch, `plugin-${index}`);
      targets.push({ committed: resolve(PROTO_DIR, plugin.out), generated });
      const absolute = (p: string) => (p.startsWith('.') && !isAbsolute(p) ? resolve(PROTO_DIR, p) : p);
      const local = Array.isArray(plugin.local)
        ? [absolute(plugin.local[0]), ...plugin.local.slice(1)]
        : plugin.local === undefined
          ? undefined
          : absolute(plugin.local);
      return { ...plugin, ...(local === undefined ? {} : { local }), out: generated };
    });
    runBuf(['generate', '--template', JSON.stringify({ ...template, plugins })]);

    for (const { committed, generated } of targets) {
      const expectedFiles = listFiles(generated);
      expect(expectedFiles.length).toBeGreaterThan(0);
      // Same set of files: nothing missing, nothing left over from a removed proto.
      expect(listFiles(committed)).toEqual(expectedFiles);
      const stale = expectedFiles.filter(
        (file) => !readFileSync(join(committed, file)).equals(readFileSync(join(generated, file))),
      );
      expect(stale).toEqual([]);
    }
  });
});
