import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import { MerchantSite } from './support/merchant-site';

const ROOT = resolve(__dirname, '../..');

interface Tour {
  name: string;
  language: string;
  code: string;
}

/**
 * The README's tours: `<!-- tour:<name> -->` followed by a fenced code block. A marker without a
 * block is a tour not written yet and yields nothing.
 */
function readmeTours(markdown: string): Tour[] {
  const marked = /<!-- tour:([\w-]+) -->\s*```(\w+)\n([\s\S]*?)\n```/g;
  return [...markdown.matchAll(marked)].map(([, name, language, code]) => ({ name, language, code }));
}

/**
 * How each fence language runs: shell with bash, stopping at the first failing step (`--norc`:
 * Node's stdio pipes are sockets, and bash reads bashrc on a socket as if sshd had started it),
 * JavaScript with node.
 */
const INTERPRETERS: Record<string, (code: string) => [string, string[]]> = {
  sh: (code) => ['bash', ['--norc', '-euo', 'pipefail', '-c', code]],
  js: (code) => [process.execPath, ['-e', code]],
};

/** Runs a tour from the repository root (so `require('@billing/sdk')` resolves to the workspace). */
function runTour(tour: Tour, env: Record<string, string>): Promise<string> {
  const interpreter = INTERPRETERS[tour.language];
  if (!interpreter) throw new Error(`no interpreter for a \`\`\`${tour.language} tour`);
  const [command, args] = interpreter(tour.code);
  return new Promise((done, fail) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 90_000 }, (err, stdout, stderr) => {
      if (err) fail(new Error(`the ${tour.name} tour failed (${err.message})\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      else done(stdout);
    });
  });
}

/** The README's short tour, and the longer ones beside the SDK. */
const tours = ['README.md', 'packages/sdk/tours.md'].flatMap((file) =>
  readmeTours(readFileSync(resolve(ROOT, file), 'utf8')),
);
/** The tours that sell a plan through the hosted checkout; `growing` goes on from there (§18 to §20). */
const sellingTours = tours.filter((tour) => tour.name !== 'growing');

/**
 * Every tour of the README, run as a newcomer would against `ALLOW_INSECURE_WEBHOOKS=true npm start`
 * (here a platform on fresh databases, `BASE_URL` its gateway). A tour registers, creates a key, a
 * plan, a webhook to `HOOK_URL` and a checkout session, pays it in the sandbox, and prints the
 * subscription's status and its webhook delivery ("<event> <status>"), which are checked here
 * together with what the receiver got.
 */
describe("the README's tours against a started platform", () => {
  let platform: SharedPlatform;
  let receiver: MerchantSite;

  beforeAll(async () => {
    platform = await sharedPlatform();
    receiver = await new MerchantSite().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  it('marks the curl tour, and the SDK and growing tours once packages/sdk exists', () => {
    const names = tours.map((t) => t.name);
    expect(names).toContain('curl');
    if (existsSync(resolve(ROOT, 'packages/sdk/package.json')))
      expect(names).toEqual(expect.arrayContaining(['sdk', 'growing']));
  });

  it.each(sellingTours)(
    'the $name tour sells a plan through the sandbox checkout and its webhook arrives',
    async (tour) => {
      const hookPath = `/hooks/${tour.name}`;
      const stdout = await runTour(tour, { BASE_URL: platform.gatewayUrl, HOOK_URL: `${receiver.url}${hookPath}` });

      const printed = stdout.trim().split('\n');
      expect(printed).toContain('ACTIVE');
      if (tour.name === 'curl') {
        expect(printed).toContainEqual(expect.stringMatching(/^http:\/\/[^/]+\/i\/[0-9a-f]{32}[A-Za-z0-9_-]{43}$/));
      }
      expect(printed).toContain('invoice.paid SUCCEEDED');
      const delivery = await receiver.waitFor((r) => r.path === hookPath);
      expect(JSON.parse(delivery.body.toString('utf8'))).toMatchObject({
        event: 'invoice.paid',
        data: { amount: 5000.5, currency: 'NGN', customer_email: 'payer@example.com', status: 'PAID' },
      });
      expect(delivery.headers['x-signature']).toMatch(/^[0-9a-f]{64}$/);
    },
    120_000,
  );

  it('the growing tour discounts and taxes the checkout, opens the hosted invoice and its PDF, grants credit and upgrades as its preview said', async () => {
    const tour = tours.find((t) => t.name === 'growing');
    expect(tour).toBeDefined();
    const stdout = await runTour(tour!, { BASE_URL: platform.gatewayUrl });
    expect(stdout.trim().split('\n')).toEqual([
      'paid 8062.5 of 10000',
      'VAT 7.5%: 562.5 on 7500',
      'invoice page 200, attachment; filename="INV-000001.pdf"',
      'balance 1000',
      'PRORATION PRORATION DISCOUNT',
      'Pro: preview matches, credit used 1000',
    ]);
  }, 120_000);
});
