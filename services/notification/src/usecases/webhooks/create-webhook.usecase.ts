import { randomUUID } from 'node:crypto';
import { DomainError, type ProjectScope } from '@billing/platform';
import type { WebhookModel } from '../../db/models/webhook.model';
import { eventListViolations, normalizedEvents } from '../../domain/event-catalogue';
import { newWebhookSecret } from '../../domain/webhook-secret';
import { checkWebhookUrl } from '../../registration/check-webhook-url';
import type { WebhookDeps } from '../../notification-deps';

export interface CreateWebhookCommand {
  url: string;
  events: string[];
  description?: string;
}

/** Registers a webhook (events validated against the catalogue, URL through the SSRF guard). */
export async function createWebhook(
  deps: WebhookDeps,
  scope: ProjectScope,
  command: CreateWebhookCommand,
): Promise<{ webhook: WebhookModel; secret: string }> {
  const violations = eventListViolations(command.events);
  if (violations.length > 0) throw DomainError.invalid(violations);
  const url = await checkWebhookUrl(deps, command.url);
  const secret = newWebhookSecret();
  const webhook = await deps.webhooks.create(scope, {
    id: randomUUID(),
    url,
    events: normalizedEvents(command.events),
    description: command.description?.trim() || null,
    secretSealed: deps.secrets.seal(secret),
    createdAt: deps.clock.now(),
  });
  return { webhook, secret };
}
