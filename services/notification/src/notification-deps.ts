import type { Clock, Logger } from '@billing/platform';
import type { AttemptRecord, DeliveryRepository } from './db/repositories/delivery.repository';
import type { WebhookRepository } from './db/repositories/webhook.repository';
import type { WebhookHttp } from './delivery/webhook-http';
import type { SecretBox } from './domain/webhook-secret';
import type { WebhookUrlPolicy } from './domain/webhook-url';

export interface NotificationDeps {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  /** Records an attempt; concurrent ones share a transaction (DeliveryRepository.recordAttempts). */
  recordAttempt(record: AttemptRecord): Promise<void>;
  http: WebhookHttp;
  /** WEBHOOK_RETRY_DELAYS_MS and WEBHOOK_TIMEOUT_MS. */
  delivery: { retryDelaysMs: number[]; timeoutMs: number };
  secrets: SecretBox;
  urlPolicy: WebhookUrlPolicy;
  /** Resolves a host name to every address it has (node:dns lookup with all: true). */
  resolveHost(host: string): Promise<string[]>;
  /** Webhooks and deliveries run on real time in both modes (docs/api-behaviour.md §16.1). */
  clock: Clock;
  /** Runs a delivery pass now (a test send is due at once). */
  wakeWorkers(): void;
  logger: Logger;
}
