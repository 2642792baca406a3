import type { Migration } from '@billing/platform';
import { createIdempotencyRecords } from './0001-create-idempotency-records';
import { createDashboardSessions } from './0002-create-dashboard-sessions';

/** Every migration of the gateway's database, in order. Append; never edit a shipped one. */
export const gatewayMigrations: Migration[] = [createIdempotencyRecords, createDashboardSessions];
