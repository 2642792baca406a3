import { parkedEventsMigration, type Migration } from '@billing/platform';
import { createWebhooks } from './0001-create-webhooks';
import { createDeliveries } from './0002-create-deliveries';

/** Every migration of the notification database, in order. Append; never edit a shipped one. */
export const notificationMigrations: Migration[] = [createWebhooks, createDeliveries, parkedEventsMigration];
