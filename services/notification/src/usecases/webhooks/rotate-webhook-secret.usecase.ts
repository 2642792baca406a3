import type { ProjectScope } from '@billing/platform';
import { newWebhookSecret } from '../../domain/webhook-secret';
import type { WebhookDeps } from '../../notification-deps';

/** A new signing secret; the old one signs nothing from now on. */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  scope: ProjectScope,
  webhookId: string,
): Promise<{ webhookId: string; secret: string }> {
  const webhook = await deps.webhooks.get(scope, webhookId);
  const secret = newWebhookSecret();
  await deps.webhooks.replaceSecret(webhook.id, deps.secrets.seal(secret), deps.clock.now());
  return { webhookId: webhook.id, secret };
}
