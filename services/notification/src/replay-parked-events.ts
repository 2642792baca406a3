import { runParkedEventsReplay } from '@billing/platform';
import { loadNotificationConfig } from './config';
import { notificationMigrations } from './db/migrations';

// The operator's replay of notification's parked events (docs/events-and-test-mode.md, "Replay").
runParkedEventsReplay('notification', loadNotificationConfig, notificationMigrations);
