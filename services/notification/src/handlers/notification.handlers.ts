import { DomainError, requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import { notificationV1 } from '@billing/proto';
import type { DeliveryAttemptModel, DeliveryModel } from '../db/models/delivery.model';
import type { WebhookModel } from '../db/models/webhook.model';
import type { CustomerEmailModel } from '../db/models/customer-email.model';
import type { EmailSettings } from '../domain/customer-emails';
import type { DeliveryStatus } from '../domain/delivery-status';
import { createWebhook } from '../usecases/webhooks/create-webhook.usecase';
import { deleteWebhook } from '../usecases/webhooks/delete-webhook.usecase';
import type { NotificationDeps } from '../notification-deps';
import { retryDelivery } from '../usecases/deliveries/retry-delivery.usecase';
import { rotateWebhookSecret } from '../usecases/webhooks/rotate-webhook-secret.usecase';
import { sendTestEvent } from '../usecases/webhooks/send-test-event.usecase';
import { updateEmailSettings } from '../usecases/emails/update-email-settings.usecase';

const toWebhook = (w: WebhookModel): notificationV1.Webhook => ({
  id: w.id,
  projectId: w.projectId,
  livemode: w.livemode,
  url: w.url,
  events: w.events,
  description: w.description ?? undefined,
  isActive: w.isActive,
  createdAt: w.createdAt,
});

const toDelivery = (d: DeliveryModel): notificationV1.Delivery => ({
  id: d.id,
  webhookId: d.webhookId,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode ?? undefined,
  lastError: d.lastError ?? undefined,
  nextAttemptAt: d.nextAttemptAt ?? undefined,
  createdAt: d.createdAt,
  deliveredAt: d.deliveredAt ?? undefined,
  livemode: d.livemode,
});

const toAttempt = (a: DeliveryAttemptModel): notificationV1.DeliveryAttempt => ({
  attempt: a.attempt,
  at: a.at,
  statusCode: a.statusCode ?? undefined,
  durationMs: a.durationMs,
  error: a.error ?? undefined,
});

const toEmailSettings = (settings: EmailSettings): notificationV1.EmailSettings => ({
  enabled: settings.enabled,
  fromName: settings.fromName ?? undefined,
  replyTo: settings.replyTo ?? undefined,
});

const toCustomerEmail = (e: CustomerEmailModel): notificationV1.CustomerEmail => ({
  id: e.id,
  eventId: e.eventId,
  type: e.type,
  to: e.toAddress ?? undefined,
  subject: e.subject ?? undefined,
  status: e.status,
  attempts: e.attempts,
  sentAt: e.sentAt ?? undefined,
  createdAt: e.createdAt,
  customerId: e.customerId,
  livemode: e.livemode,
});

const DELIVERY_STATUSES: DeliveryStatus[] = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'];

/** Thin: proto request -> use case -> proto response. */
export function notificationHandlers(deps: NotificationDeps, logger: Logger): notificationV1.NotificationServiceServer {
  const handlers: UnaryHandlers<notificationV1.NotificationServiceServer> = {
    async createWebhook(req) {
      const { webhook, secret } = await createWebhook(deps, requireScope(req.scope), {
        url: req.url,
        events: req.events,
        description: req.description,
      });
      return { webhook: toWebhook(webhook), secret };
    },
    async listWebhooks(req) {
      return { webhooks: (await deps.webhooks.list(requireScope(req.scope))).map(toWebhook) };
    },
    async deleteWebhook(req) {
      await deleteWebhook(deps, requireScope(req.scope), req.webhookId);
      return {};
    },
    async rotateSecret(req) {
      return rotateWebhookSecret(deps, requireScope(req.scope), req.webhookId);
    },
    async sendTestEvent(req) {
      return { delivery: toDelivery(await sendTestEvent(deps, requireScope(req.scope), req.webhookId, req.event)) };
    },
    async listDeliveries(req) {
      const scope = requireScope(req.scope);
      if (req.status && !DELIVERY_STATUSES.includes(req.status as DeliveryStatus)) {
        throw DomainError.invalid([
          {
            loc: ['query', 'status'],
            msg: `Input should be one of ${DELIVERY_STATUSES.join(', ')}`,
            type: 'enum',
            input: req.status,
          },
        ]);
      }
      const webhook = await deps.webhooks.get(scope, req.webhookId);
      const deliveries = await deps.deliveries.list(
        scope,
        webhook.id,
        (req.status || undefined) as DeliveryStatus | undefined,
        {
          limit: req.page?.limit,
          startingAfter: req.page?.startingAfter || undefined,
        },
      );
      return { deliveries: deliveries.map(toDelivery) };
    },
    async getDelivery(req) {
      const delivery = await deps.deliveries.get(requireScope(req.scope), req.deliveryId);
      const attempts = await deps.deliveries.attemptsOf(delivery.id);
      return { delivery: toDelivery(delivery), payload: delivery.body, attempts: attempts.map(toAttempt) };
    },
    async retryDelivery(req) {
      return { delivery: toDelivery(await retryDelivery(deps, requireScope(req.scope), req.deliveryId)) };
    },
    async getEmailSettings(req) {
      return { settings: toEmailSettings(await deps.emailSettings.get(requireScope(req.scope))) };
    },
    async updateEmailSettings(req) {
      const settings = await updateEmailSettings(deps, requireScope(req.scope), {
        enabled: req.settings?.enabled ?? false,
        fromName: req.settings?.fromName ?? null,
        replyTo: req.settings?.replyTo ?? null,
      });
      return { settings: toEmailSettings(settings) };
    },
    async listCustomerEmails(req) {
      const emails = await deps.emails.list(requireScope(req.scope), req.customerId, {
        limit: req.page?.limit,
        startingAfter: req.page?.startingAfter || undefined,
      });
      return { emails: emails.map(toCustomerEmail) };
    },
  };
  return unaryService(handlers, logger);
}
