import type { Migration } from '@billing/platform';
import { createLedger } from './0001-create-ledger';
import { addRefundNotes } from './0002-add-refund-notes';

/** Every migration of the sandbox provider's database, in order. Append; never edit a shipped one. */
export const sandboxMigrations: Migration[] = [createLedger, addRefundNotes];
