import type { Migration } from '@billing/platform';
import { createPortalTables } from './0001-create-portal-tables';

/** Every migration of the portal database, in order. Append; never edit a shipped one. */
export const portalMigrations: Migration[] = [createPortalTables];
