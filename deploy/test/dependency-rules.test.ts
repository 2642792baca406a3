/**
 * The import rules of .dependency-cruiser.cjs, as `npm run lint` applies them (docs/decisions.md,
 * "How a service is laid out"): the repository keeps every one, and each refuses the import it
 * names. The cases' files go into one scratch tree laid out like the repository's (each case's
 * files apart from the others'), cruised once with the repository's own rules.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPOSITORY } from './support/manifests';

const run = promisify(execFile);
const DEPCRUISE = path.join(REPOSITORY, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = path.join(REPOSITORY, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The rules broken in `cwd` (one entry per import that breaks one). */
async function violations(cwd: string, roots: string[]): Promise<string[]> {
  const { stdout } = await run(
    process.execPath,
    [DEPCRUISE, '--config', CONFIG, '--output-type', 'json', '--no-progress', ...roots],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  );
  const report = JSON.parse(stdout) as { summary: { violations: Violation[] } };
  return report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

/** Files (path -> the module names it imports) that break one rule each, by what they show. */
const FORBIDDEN: [string, Record<string, string[]>, string[]][] = [
  [
    'a use case importing another use case',
    {
      'services/billing/src/usecases/invoices/pay-invoice.usecase.ts': ['../subscriptions/change-plan.usecase'],
      'services/billing/src/usecases/subscriptions/change-plan.usecase.ts': [],
    },
    [
      'use-case-imports-use-case: services/billing/src/usecases/invoices/pay-invoice.usecase.ts -> services/billing/src/usecases/subscriptions/change-plan.usecase.ts',
    ],
  ],
  [
    'a module other than a use case in usecases/',
    {
      'services/billing/src/usecases/customers/get-customer.usecase.ts': ['./customer-helpers'],
      'services/billing/src/usecases/customers/customer-helpers.ts': [],
    },
    [
      'only-use-cases-in-usecases: services/billing/src/usecases/customers/get-customer.usecase.ts -> services/billing/src/usecases/customers/customer-helpers.ts',
      'use-case-imports-use-case: services/billing/src/usecases/customers/get-customer.usecase.ts -> services/billing/src/usecases/customers/customer-helpers.ts',
    ],
  ],
  [
    'shared machinery calling a use case back',
    {
      'services/billing/src/invoicing/first-invoice.ts': ['../usecases/subscriptions/create-subscription.usecase'],
      'services/billing/src/usecases/subscriptions/create-subscription.usecase.ts': [],
    },
    [
      'shared-home-imports-use-case: services/billing/src/invoicing/first-invoice.ts -> services/billing/src/usecases/subscriptions/create-subscription.usecase.ts',
    ],
  ],
  [
    'an import circle',
    {
      'services/billing/src/invoicing/claim-charges.ts': ['./record-charge-outcomes'],
      'services/billing/src/invoicing/record-charge-outcomes.ts': ['./claim-charges'],
    },
    [
      'no-circular: services/billing/src/invoicing/claim-charges.ts -> services/billing/src/invoicing/record-charge-outcomes.ts',
    ],
  ],
  [
    'a domain rule reaching outside domain/',
    {
      'services/billing/src/domain/dunning.ts': ['../billing-deps'],
      'services/billing/src/billing-deps.ts': [],
    },
    ['domain-is-pure: services/billing/src/domain/dunning.ts -> services/billing/src/billing-deps.ts'],
  ],
  [
    'a use case importing a handler',
    {
      'services/billing/src/usecases/invoices/get-invoice.usecase.ts': ['../../handlers/billing-messages'],
      'services/billing/src/handlers/billing-messages.ts': [],
    },
    [
      'only-handlers-use-handlers: services/billing/src/usecases/invoices/get-invoice.usecase.ts -> services/billing/src/handlers/billing-messages.ts',
    ],
  ],
  [
    'a service importing another service',
    {
      'services/catalog/src/usecases/create-plan.usecase.ts': ['../../../billing/src/domain/periods'],
      'services/billing/src/domain/periods.ts': [],
    },
    [
      'no-service-imports-another: services/catalog/src/usecases/create-plan.usecase.ts -> services/billing/src/domain/periods.ts',
    ],
  ],
];

/** Writes `files` into the scratch tree `root`. */
async function writeTree(root: string, files: Record<string, string[]>): Promise<void> {
  for (const [file, imports] of Object.entries(files)) {
    await mkdir(path.join(root, path.dirname(file)), { recursive: true });
    const lines = imports.map((spec, i) => `import * as m${i} from '${spec}';\nexport const u${i} = m${i};`);
    await writeFile(path.join(root, file), `${lines.join('\n')}\nexport const here = 1;\n`);
  }
}

describe('the import rules', () => {
  let found: string[];

  beforeAll(async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'dependency-rules-'));
    try {
      await copyFile(path.join(REPOSITORY, 'tsconfig.base.json'), path.join(scratch, 'tsconfig.base.json'));
      for (const [, files] of FORBIDDEN) await writeTree(scratch, files);
      await writeTree(scratch, ALLOWED);
      found = await violations(scratch, ['services']);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);

  it('the repository keeps every rule', async () => {
    const roots = [
      'services',
      'gateway/src',
      'packages/platform/src',
      'packages/payments/src',
      'packages/analytics/src',
      'deploy/src',
    ];
    expect(await violations(REPOSITORY, roots)).toEqual([]);
  }, 60_000);

  it.each(FORBIDDEN)('refuses %s', (_what, files, expected) => {
    const ofTheCase = found.filter((v) => Object.keys(files).some((file) => v.includes(`: ${file} -> `)));
    expect(ofTheCase.sort()).toEqual([...expected].sort());
  });

  it('allows a use case reaching shared machinery, a read model, events and domain rules', () => {
    const ofTheCase = found.filter((v) => Object.keys(ALLOWED).some((file) => v.includes(`: ${file} -> `)));
    expect(ofTheCase).toEqual([]);
  });
});

const ALLOWED: Record<string, string[]> = {
  'services/billing/src/usecases/invoices/void-invoice.usecase.ts': [
    '../../invoicing/mark-void',
    '../../read-models/invoice.read-model',
    '../../domain/subscription-status',
  ],
  'services/billing/src/invoicing/mark-void.ts': ['../events/invoice.events'],
  'services/billing/src/events/invoice.events.ts': ['../read-models/invoice.read-model'],
  'services/billing/src/read-models/invoice.read-model.ts': [],
  'services/billing/src/domain/subscription-status.ts': [],
};
