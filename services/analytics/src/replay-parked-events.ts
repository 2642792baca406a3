import { runParkedEventsReplay } from '@billing/platform';
import { loadAnalyticsConfig } from './config';
import { analyticsMigrations } from './db/migrations';

// The operator's replay of analytics' parked events (docs/events-and-test-mode.md, "Replay").
runParkedEventsReplay('analytics', loadAnalyticsConfig, analyticsMigrations);
