import { DEFAULT_CHROMIUM, ensureChromium, INSTALL_COMMAND, type ChromiumHost } from '../src/chromium';
import { runsBrowserTests } from '../src/runner';

/** A machine described by its files; `run` records commands and may make files appear. */
function machine(options: { files?: string[]; isRoot?: boolean; env?: NodeJS.ProcessEnv; installWorks?: boolean }) {
  const files = new Set(options.files ?? []);
  const commands: string[] = [];
  const host: ChromiumHost = {
    env: options.env ?? { PATH: '/usr/local/bin:/usr/bin' },
    isRoot: options.isRoot ?? true,
    exists: (path) => files.has(path),
    run(command, args) {
      commands.push([command, ...args].join(' '));
      if (args[0] === 'install' && options.installWorks) files.add(DEFAULT_CHROMIUM);
      return options.installWorks ?? false;
    },
  };
  return { host, commands };
}

describe('ensureChromium (npm test on a new machine)', () => {
  const log = () => undefined;

  it('uses the Debian binary when it is there and installs nothing', () => {
    const { host, commands } = machine({ files: [DEFAULT_CHROMIUM, '/usr/bin/apt-get'] });
    expect(ensureChromium(host, log)).toEqual({ ok: true, path: DEFAULT_CHROMIUM, installed: false });
    expect(commands).toEqual([]);
  });

  it('finds chromium elsewhere on PATH', () => {
    const { host } = machine({ files: ['/usr/local/bin/chromium'] });
    expect(ensureChromium(host, log)).toEqual({ ok: true, path: '/usr/local/bin/chromium', installed: false });
  });

  it('as root with apt-get, installs the Debian package', () => {
    const { host, commands } = machine({ files: ['/usr/bin/apt-get'], installWorks: true });
    expect(ensureChromium(host, log)).toEqual({ ok: true, path: DEFAULT_CHROMIUM, installed: true });
    expect(commands).toEqual(['apt-get update -qq', 'apt-get install -y -qq chromium']);
  });

  it('without root, stops with the exact command to run and runs nothing', () => {
    const { host, commands } = machine({ files: ['/usr/bin/apt-get'], isRoot: false });
    const outcome = ensureChromium(host, log);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.problem).toContain(INSTALL_COMMAND);
    expect(commands).toEqual([]);
  });

  it('a failed install says so and names the command', () => {
    const { host } = machine({ files: ['/usr/bin/apt-get'], installWorks: false });
    const outcome = ensureChromium(host, log);
    expect(!outcome.ok && outcome.problem).toMatch(/apt-get failed[\s\S]*apt-get install -y chromium/);
  });

  it('a CHROMIUM_PATH that does not exist is an error, not a silent install', () => {
    const { host, commands } = machine({ files: ['/usr/bin/apt-get'], env: { CHROMIUM_PATH: '/opt/none' } });
    expect(ensureChromium(host, log)).toEqual({
      ok: false,
      problem: 'CHROMIUM_PATH=/opt/none does not exist: fix it or unset it',
    });
    expect(commands).toEqual([]);
  });
});

describe('runsBrowserTests', () => {
  it('is true for the whole suite, patterns and flags, and named browser tests', () => {
    expect(runsBrowserTests([])).toBe(true);
    expect(runsBrowserTests(['gateway'])).toBe(true);
    expect(runsBrowserTests(['--testNamePattern', 'x'])).toBe(true);
    expect(runsBrowserTests(['gateway/test/checkout-browser.test.ts'])).toBe(true);
  });

  it('is false for named files none of which is a browser test', () => {
    expect(runsBrowserTests(['gateway/test/plans.test.ts', 'deploy/test/chromium.test.ts'])).toBe(false);
  });
});
