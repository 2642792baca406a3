import { DomainError, type ProjectScope } from '@billing/platform';
import type { WebhookDeps } from '../../notification-deps';

/** Removes a webhook; it receives nothing more. */
export async function deleteWebhook(deps: WebhookDeps, scope: ProjectScope, webhookId: string): Promise<void> {
  const webhook = await deps.webhooks.get(scope, webhookId);
  if (!(await deps.webhooks.delete(webhook.id))) throw new DomainError('not_found', 'Webhook not found');
}
