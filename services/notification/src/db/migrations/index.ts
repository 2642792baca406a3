import { parkedEventRetentionIndexMigration, parkedEventsMigration, type Migration } from '@billing/platform';
import { createWebhooks } from './0001-create-webhooks';
import { createDeliveries } from './0002-create-deliveries';
import { deliveryTraceContext } from './0003-delivery-trace-context';
import { customerEmails } from './0004-customer-emails';
import { indexFinishedDeliveries } from './0005-index-finished-deliveries';

/** Every migration of the notification database, in order. Append; never edit a shipped one. */
export const notificationMigrations: Migration[] = [
  createWebhooks,
  createDeliveries,
  parkedEventsMigration,
  deliveryTraceContext,
  customerEmails,
  parkedEventRetentionIndexMigration,
  indexFinishedDeliveries,
];
