import { requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import { notificationV1 } from '@billing/proto';
import type { WebhookModel } from '../db/models/webhook.model';
import { createWebhook } from '../usecases/create-webhook.usecase';
import { deleteWebhook } from '../usecases/delete-webhook.usecase';
import type { NotificationDeps } from '../usecases/notification-deps';
import { rotateWebhookSecret } from '../usecases/rotate-webhook-secret.usecase';

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
  };
  return unaryService(handlers, logger);
}
