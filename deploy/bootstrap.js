#!/usr/bin/env node
'use strict';
/**
 * Entry point of `npm start`, `npm test`, `npm run bench` and `npm run chaos`. Plain CommonJS with no
 * dependencies, because it runs on a fresh clone before node_modules exists:
 *   1. install dependencies when node_modules is missing or older than package-lock.json
 *      (`npm ci`: exactly the committed lock, never a silently rewritten one);
 *   2. build every workspace (`npm run build`, an incremental `tsc -b`), and for --test
 *      type-check the tests too (`npm run typecheck:tests`), beside the tests rather than before
 *      them: a type error still fails the run, at its end;
 *   3. hand over, in this same process, to the compiled runner deploy/dist/runner.js.
 * Staying in one process means Ctrl-C and SIGTERM reach the runner directly, which then
 * stops the platform's processes in order.
 *
 * Usage: node deploy/bootstrap.js                   start the platform
 *        node deploy/bootstrap.js --test [jest args] run the test suite
 *        node deploy/bootstrap.js --bench [names]    run benchmarks (all when no name)
 *        node deploy/bootstrap.js --chaos [options]  the chaos run (docs/chaos.md)
 */
const { spawn, spawnSync } = require('node:child_process');
const { closeSync, existsSync, openSync, statSync } = require('node:fs');
const { setPriority, tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function say(message) {
  process.stdout.write(`[bootstrap] ${message}\n`);
}

function run(args) {
  say(`npm ${args.join(' ')}`);
  const result = spawnSync(NPM, args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.error) {
    process.stderr.write(`[bootstrap] could not run npm: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.status !== 0) {
    process.stderr.write(`[bootstrap] npm ${args[0]} ${args[1] || ''} failed (exit ${result.status})\n`);
    process.exit(result.status || 1);
  }
}

function mtime(path) {
  return statSync(path).mtimeMs;
}

/** npm writes node_modules/.package-lock.json at the end of every install: it is our stamp. */
function installNeeded() {
  const stamp = join(ROOT, 'node_modules', '.package-lock.json');
  const lock = join(ROOT, 'package-lock.json');
  if (!existsSync(join(ROOT, 'node_modules')) || !existsSync(stamp)) return 'node_modules is missing';
  if (!existsSync(lock)) return 'package-lock.json is missing';
  if (mtime(lock) > mtime(stamp)) return 'package-lock.json is newer than node_modules';
  return undefined;
}

function parseMode(argv) {
  if (argv[0] === '--test') return { mode: 'test', args: argv.slice(1) };
  if (argv[0] === '--bench') return { mode: 'bench', args: argv.slice(1) };
  if (argv[0] === '--chaos') return { mode: 'chaos', args: argv.slice(1) };
  if (argv.length === 0 || argv[0] === 'start' || argv[0] === '--start') return { mode: 'start', args: argv.slice(1) };
  process.stderr.write(
    `[bootstrap] unknown arguments: ${argv.join(' ')}\nusage: node deploy/bootstrap.js [--test [jest args...] | --bench [names...] | --chaos [options]]\n`,
  );
  process.exit(64);
}

/**
 * On a new machine the browser tests' Chromium is missing, and installing it (apt-get, about a
 * minute) need not wait for anything: for the whole suite (`npm test` without arguments) it
 * starts now, beside the install, the build and the first suites, when this user can install
 * (root with apt-get); the browser suites wait for its outcome (packages/testing's
 * chromium-ready.ts). For a run of named files the runner installs it before jest, and says
 * what to do when it cannot (deploy/src/chromium.ts).
 */
function startChromiumInstall(mode, args) {
  const wholeSuite = mode === 'test' && args.length === 0;
  if (!wholeSuite || process.env.CHROMIUM_PATH || existsSync('/usr/bin/chromium')) return undefined;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) return undefined;
  const logPath = join(tmpdir(), 'billing-chromium-install.log');
  say(`Chromium is missing: installing the Debian package while the build runs (log: ${logPath})`);
  const log = openSync(logPath, 'w');
  const child = spawn('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq chromium'], {
    stdio: ['ignore', log, log],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  closeSync(log);
  yieldToTheTests(child);
  return new Promise((resolveExit) => {
    child.on('error', () => resolveExit(1));
    child.on('exit', (code) => resolveExit(code ?? 1));
  });
}

/**
 * Lowers a background job's CPU priority (nice 10, inherited by what it starts): on two cores the
 * suites' timing-critical work goes first, and the job uses what they leave idle.
 */
function yieldToTheTests(child) {
  try {
    if (child.pid) setPriority(child.pid, 10);
  } catch {
    // Not permitted here: the job runs at normal priority.
  }
}

/** `npm run typecheck:tests` in the background; resolves to its exit code. */
function startTypecheck() {
  say('npm run typecheck:tests --silent (beside the tests)');
  const child = spawn(NPM, ['run', 'typecheck:tests', '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: process.platform === 'win32',
  });
  yieldToTheTests(child);
  return new Promise((resolveExit) => {
    child.on('error', () => resolveExit(1));
    child.on('exit', (code) => resolveExit(code ?? 1));
  });
}

async function main() {
  const { mode, args } = parseMode(process.argv.slice(2));
  const [major] = process.versions.node.split('.').map(Number);
  if (major < 20) {
    process.stderr.write(`[bootstrap] Node.js 20 or newer is required (this is ${process.version})\n`);
    process.exit(1);
  }

  const chromiumInstall = startChromiumInstall(mode, args);
  const reason = installNeeded();
  if (reason) {
    say(`installing dependencies (${reason})`);
    // --include=dev: the runner's own tools are devDependencies, and NODE_ENV=production
    // in the caller's shell must not silently leave them out. `npm ci` installs exactly the
    // committed lock and fails when package.json and the lock disagree: a changed lock is a
    // change to commit, not something an install should hide.
    run(['ci', '--include=dev', '--no-audit', '--no-fund']);
  }

  if (process.env.SKIP_BUILD === '1') say('SKIP_BUILD=1: not building');
  else {
    run(['run', 'build', '--silent']);
    // jest runs the tests through swc, which strips their types unchecked: check them first.
  }
  // jest runs the tests through swc, which strips their types unchecked: check them, while
  // the suite runs (tsc takes a core for about 15 s, which the run's first platform starts
  // mostly wait out anyway).
  const typecheck = mode === 'test' && process.env.SKIP_BUILD !== '1' ? startTypecheck() : undefined;

  const runner = join(ROOT, 'deploy', 'dist', 'runner.js');
  if (!existsSync(runner)) {
    process.stderr.write(`[bootstrap] ${runner} is missing after the build\n`);
    process.exit(1);
  }
  // An install of Chromium still under way goes on beside the suites that need no browser.
  require(runner)
    .main(mode, args, { chromiumInstall })
    .then(
      async (code) => {
        const typeErrors = typecheck ? await typecheck : 0;
        if (typeErrors !== 0)
          process.stderr.write('[bootstrap] the tests do not type-check (npm run typecheck:tests)\n');
        process.exit(code || typeErrors);
      },
      (err) => {
        process.stderr.write(`[bootstrap] ${err && err.stack ? err.stack : err}\n`);
        process.exit(1);
      },
    );
}

main().catch((err) => {
  process.stderr.write(`[bootstrap] ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
