import { runParkedEventsReplay } from '@billing/platform';
import { loadBillingConfig } from './config';
import { billingMigrations } from './db/migrations';

// The operator's replay of billing's parked events (docs/events-and-test-mode.md, "Replay").
runParkedEventsReplay('billing', loadBillingConfig, billingMigrations);
