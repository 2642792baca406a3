import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from 'pg';
import { adminClient } from './databases';

const REPO_ROOT = resolve(__dirname, '../../..');

/**
 * Every file whose content decides a service's schema: the built migrations of each service and
 * the gateway, and the platform's modules that carry migrations of their own (outbox, project
 * clocks, parked events) or run them (db).
 */
function schemaSources(): string[] {
  const owners = [
    join(REPO_ROOT, 'gateway'),
    ...readdirSync(join(REPO_ROOT, 'services')).map((s) => join(REPO_ROOT, 'services', s)),
  ];
  const migrations = owners
    .map((owner) => join(owner, 'dist', 'db', 'migrations'))
    .filter((dir) => existsSync(dir))
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((name) => name.endsWith('.js'))
        .map((name) => join(dir, name)),
    );
  const platform = ['db', 'outbox', 'project-clocks', 'parked-events'].map((name) =>
    join(REPO_ROOT, 'packages', 'platform', 'dist', `${name}.js`),
  );
  return [...migrations, ...platform].sort();
}

/** The template set's name: `tpl_` and a digest of the schema's sources, so a changed migration never reuses an old one. */
export function templatePrefix(): string {
  const digest = createHash('sha256');
  for (const file of schemaSources()) {
    digest.update(file.slice(REPO_ROOT.length));
    digest.update(readFileSync(file));
  }
  return `tpl_${digest.digest('hex').slice(0, 16)}`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The template databases of a prefix: service (as in `<prefix>_<service>`) -> database name. */
async function templatesOf(admin: Client, prefix: string): Promise<Map<string, string>> {
  const { rows } = await admin.query<{ datname: string }>(
    'SELECT datname FROM pg_database WHERE datname LIKE $1 AND datistemplate',
    [`${prefix}\\_%`],
  );
  return new Map(rows.map(({ datname }) => [datname.slice(prefix.length + 1), datname]));
}

/**
 * Makes sure every service's migrated schema exists as a template database, and returns them.
 * The first caller (under an advisory lock, so concurrent lanes build it once) starts the whole
 * platform once against `tplbuild_...` databases, as `npm start` would migrate them, stops it,
 * and renames each database to `<template prefix>_<service>`, marked a template. Templates of
 * older schemas are dropped then.
 */
export async function ensureDatabaseTemplates(
  migrateFresh: (prefix: string) => Promise<void>,
): Promise<Map<string, string>> {
  const prefix = templatePrefix();
  const admin = await adminClient();
  try {
    const ready = await templatesOf(admin, prefix);
    if (ready.size > 0) return ready;
    await admin.query("SELECT pg_advisory_lock(hashtext('billing_test_database_templates'))");
    try {
      const built = await templatesOf(admin, prefix);
      if (built.size > 0) return built;
      const buildPrefix = `tplbuild_${prefix.slice(4)}_${process.pid}`;
      await migrateFresh(buildPrefix);
      const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
        `${buildPrefix}\\_%`,
      ]);
      for (const { datname } of rows) {
        const template = `${prefix}${datname.slice(buildPrefix.length)}`;
        await whenUnused(() => admin.query(`ALTER DATABASE ${quote(datname)} RENAME TO ${quote(template)}`));
        await admin.query(`ALTER DATABASE ${quote(template)} IS_TEMPLATE true`);
      }
      await dropStaleTemplates(admin, prefix);
      return await templatesOf(admin, prefix);
    } finally {
      await admin.query("SELECT pg_advisory_unlock(hashtext('billing_test_database_templates'))");
    }
  } finally {
    await admin.end();
  }
}

/**
 * Runs a statement that needs a database nobody is connected to: a stopped process's last
 * connections may take a moment to end (PostgreSQL's 55006, "being accessed by other users").
 */
async function whenUnused(statement: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await statement();
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Templates of another schema (an older checkout's); one in use by a concurrent run stays. */
async function dropStaleTemplates(admin: Client, current: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datistemplate AND datname LIKE 'tpl\\_%' AND datname NOT LIKE $1",
    [`${current}\\_%`],
  );
  for (const { datname } of rows) {
    try {
      await admin.query(`ALTER DATABASE ${quote(datname)} IS_TEMPLATE false`);
      await admin.query(`DROP DATABASE ${quote(datname)}`);
    } catch {
      // Being copied by another run right now: it goes with a later build.
    }
  }
}

/** A run's databases, `<runId>_<service>`, each a copy of its service's template. */
export async function createDatabasesFromTemplates(runId: string, templates: Map<string, string>): Promise<void> {
  const admin = await adminClient();
  try {
    for (const [service, template] of templates) {
      await admin.query(`CREATE DATABASE ${quote(`${runId}_${service}`)} TEMPLATE ${quote(template)}`);
    }
  } finally {
    await admin.end();
  }
}
