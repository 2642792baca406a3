import type { Clock, Logger } from '@billing/platform';
import type { AttemptRecord, DeliveryRepository } from './db/repositories/delivery.repository';
import type { CustomerEmailRepository } from './db/repositories/customer-email.repository';
import type { EmailSettingsRepository } from './db/repositories/email-settings.repository';
import type { WebhookRepository } from './db/repositories/webhook.repository';
import type { BillingEmailFacts } from './emails/email-facts';
import type { SmtpMailer } from './emails/smtp-mailer';
import type { WebhookHttp } from './delivery/webhook-http';
import type { SecretBox } from './domain/webhook-secret';
import type { WebhookUrlPolicy } from './domain/webhook-url';

/** What the webhooks' machinery works with (registration, fan-out, attempts). */
export interface WebhookDeps {
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

/**
 * What customer emails work with (docs/api-behaviour.md §24): their rows, the settings,
 * billing's facts, SMTP. Apart from the webhooks' deps, so neither machinery reaches the other's.
 */
export interface EmailDeps {
  emails: CustomerEmailRepository;
  emailSettings: EmailSettingsRepository;
  emailFacts: BillingEmailFacts;
  /** Null without SMTP_URL: emails are written and stay QUEUED. */
  mailer: SmtpMailer | null;
  /** EMAIL_RETRY_DELAYS_MS, and the lease of a claimed email (past the SMTP timeouts). */
  email: { retryDelaysMs: number[]; leaseMs: number };
  /** Runs an email pass now (new emails were queued). */
  wakeEmails(): void;
  /**
   * Test-only fault injection (NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT): runs right after the
   * SMTP server accepted an email and before it is recorded SENT.
   */
  afterEmailSent?: () => void;
  /** Real time, as webhooks (docs/api-behaviour.md §16.1). */
  clock: Clock;
  logger: Logger;
}

/** Everything the service's wiring hands its handlers. */
export type NotificationDeps = WebhookDeps & EmailDeps;
