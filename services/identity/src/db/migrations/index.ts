import { outboxMigrations, type Migration } from '@billing/platform';
import { createIdentityTables } from './0001-create-identity-tables';

/** Every migration of the identity database, in order. Append; never edit a shipped one. */
export const identityMigrations: Migration[] = [...outboxMigrations, createIdentityTables];
