/**
 * The layer rule of eslint.config.js, as `npm run lint` applies it: below a service's wiring,
 * everything but db/ (use cases, handlers, HTTP routes, shared homes, read models) reaches the
 * database only through its repositories; and an event type is written only in its resource's
 * builder in events/ (docs/decisions.md). Each case lints a few lines as if they were a file at
 * that path.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { REPOSITORY } from './support/manifests';

// The config passed as a value: ESLint's own loading of it is a dynamic import, which jest's
// module system does not run.
const eslint = new ESLint({
  cwd: REPOSITORY,
  overrideConfigFile: true,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  overrideConfig: require(path.join(REPOSITORY, 'eslint.config.js')) as ESLint.Options['overrideConfig'],
});

/** The layer rule's messages for `code` placed at `filePath` (other rules' findings left out). */
async function layerFindings(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages
    .filter((m) => m.ruleId === 'no-restricted-syntax' || m.ruleId === '@typescript-eslint/no-restricted-imports')
    .map((m) => m.message);
}

const TO_REPOSITORIES = expect.stringContaining('db/repositories');

describe('the layer rule: the database only through repositories', () => {
  it.each([
    [
      'services/catalog/src/http/pages.ts',
      'a model imported by an HTTP route',
      "import { PlanModel } from '../db/models/plan.model';\nvoid PlanModel;\n",
    ],
    [
      'services/billing/src/usecases/x.usecase.ts',
      'a model imported by a use case',
      "import { InvoiceModel } from '../db/models';\nvoid InvoiceModel;\n",
    ],
    [
      'services/billing/src/handlers/x.handlers.ts',
      'raw SQL through a property',
      "declare const deps: { sequelize: { query(s: string): void } };\ndeps.sequelize.query('SELECT 1');\n",
    ],
    [
      'services/catalog/src/http/pages.ts',
      'raw SQL on a bare sequelize',
      "declare const sequelize: { query(s: string): void };\nsequelize.query('SELECT 1');\n",
    ],
    [
      'services/catalog/src/http/pages.ts',
      "a model instance's reload",
      'declare const session: { reload(): Promise<void> };\nvoid session.reload();\n',
    ],
    [
      'services/billing/src/usecases/x.usecase.ts',
      "a model instance's update",
      'declare const invoice: { update(v: object): void };\ninvoice.update({ status: "PAID" });\n',
    ],
    [
      'services/billing/src/usecases/x.usecase.ts',
      "a model instance's set(key, value, options)",
      "declare const invoice: { set(k: string, v: null, o: object): void };\ninvoice.set('nextPaymentAttempt', null, { raw: true });\n",
    ],
    [
      'services/billing/src/invoicing/x.ts',
      'a model imported by shared invoice machinery',
      "import { InvoiceModel } from '../db/models';\nvoid InvoiceModel;\n",
    ],
    [
      'services/billing/src/read-models/x.read-model.ts',
      'raw SQL in a read model',
      "declare const deps: { sequelize: { query(s: string): void } };\ndeps.sequelize.query('SELECT 1');\n",
    ],
    [
      'services/sandbox-provider/src/webhooks/x.ts',
      "a model instance's save outside the usual layers",
      'declare const transaction: { save(): Promise<void> };\nvoid transaction.save();\n',
    ],
    [
      'services/billing/src/usecases/x.usecase.ts',
      "a model instance's set({...})",
      'declare const invoice: { set(v: object): void };\ninvoice.set({ status: "PAID" });\n',
    ],
  ])('%s: refuses %s', async (filePath, _what, code) => {
    expect(await layerFindings(filePath, code)).toEqual([TO_REPOSITORIES]);
  });

  it.each([
    ['a repository call', 'declare const deps: { plans: { save(v: object): void } };\ndeps.plans.save({});\n'],
    [
      'a type-only import of a model',
      "import type { PlanModel } from '../db/models/plan.model';\nexport type P = PlanModel;\n",
    ],
    [
      "a Map's and a Headers' set",
      'const m = new Map<string, number>();\nm.set("a", 1);\nnew Headers().set("a", "b");\n',
    ],
    [
      "Express's res.set({...})",
      'declare const res: { set(v: object): void };\nres.set({ "cache-control": "no-store" });\n',
    ],
    [
      'a hash',
      "import { createHash } from 'node:crypto';\nexport const d = createHash('sha256').update('x').digest();\n",
    ],
    [
      "a cipher's update and an HTTP request's destroy",
      'declare const cipher: { update(s: string): void };\ncipher.update("x");\ndeclare const req: { destroy(): void };\nreq.destroy();\n',
    ],
  ])('allows %s in an HTTP route', async (_what, code) => {
    expect(await layerFindings('services/catalog/src/http/pages.ts', code)).toEqual([]);
  });

  it('holds for the whole repository: no finding in any service', async () => {
    // Listed here rather than by lintFiles, whose glob search is a dynamic import too.
    const files = readdirSync(path.join(REPOSITORY, 'services')).flatMap((service) => {
      const src = path.join('services', service, 'src');
      if (!existsSync(path.join(REPOSITORY, src))) return [];
      return readdirSync(path.join(REPOSITORY, src), { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.ts') && !file.startsWith(`db${path.sep}`))
        .filter((file) => file !== 'server.ts' && file !== 'main.ts')
        .map((file) => path.join(src, file));
    });
    expect(files.length).toBeGreaterThan(150);
    const findings: string[] = [];
    for (const file of files) {
      const code = readFileSync(path.join(REPOSITORY, file), 'utf8');
      for (const message of await layerFindings(file, code)) findings.push(`${file}: ${message}`);
    }
    expect(findings).toEqual([]);
  });
});

describe('one event builder per resource', () => {
  const HAND_BUILT = expect.stringContaining('events/<resource>.events.ts');

  it.each([
    ['services/billing/src/usecases/invoices/x.usecase.ts', "export const e = { type: 'invoice.paid' };\n"],
    [
      'services/billing/src/invoicing/x.ts',
      "export const emit = (f: (t: string) => void) => f('subscription.past_due');\n",
    ],
    ['services/catalog/src/usecases/x.usecase.ts', "export const t = 'checkout.session.completed';\n"],
    [
      'services/identity/src/usecases/merchants/x.usecase.ts',
      "export const e = { type: 'merchant.seller_details_updated' };\n",
    ],
  ])('%s: refuses an event type written by hand', async (filePath, code) => {
    expect(await layerFindings(filePath, code)).toEqual([HAND_BUILT]);
  });

  it('allows event types in the resource builders of events/', async () => {
    expect(
      await layerFindings('services/billing/src/events/invoice.events.ts', "export const t = 'invoice.paid';\n"),
    ).toEqual([]);
    expect(
      await layerFindings(
        'services/identity/src/events/merchant.events.ts',
        "export const t = 'merchant.deactivated';\n",
      ),
    ).toEqual([]);
  });
});
