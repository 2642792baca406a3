import { findInScope, scopeWhere, type ProjectScope } from '@billing/platform';
import { WebhookModel } from '../models/webhook.model';

const WHAT = 'Webhook';

export interface NewWebhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secretSealed: string;
  createdAt: Date;
}

export class WebhookRepository {
  create(scope: ProjectScope, webhook: NewWebhook): Promise<WebhookModel> {
    return WebhookModel.create({
      ...webhook,
      projectId: scope.projectId,
      livemode: scope.livemode,
      isActive: true,
      updatedAt: webhook.createdAt,
    });
  }

  /** Another project's id -> PERMISSION_DENIED; unknown, malformed or the other mode -> NOT_FOUND. */
  get(scope: ProjectScope, id: string): Promise<WebhookModel> {
    return findInScope(WebhookModel, scope, id, WHAT);
  }

  /** Newest first. A project has few webhooks, so the whole list is one page. */
  list(scope: ProjectScope): Promise<WebhookModel[]> {
    return WebhookModel.findAll({
      where: scopeWhere(scope),
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
    });
  }

  /** The event lists of the active webhooks of these projects (the fan-out's first look). */
  async subscriptionsOf(projectIds: string[]): Promise<{ projectId: string; livemode: boolean; events: string[] }[]> {
    if (projectIds.length === 0) return [];
    return WebhookModel.findAll({
      attributes: ['projectId', 'livemode', 'events'],
      where: { projectId: [...new Set(projectIds)], isActive: true },
      raw: true,
    }) as unknown as Promise<{ projectId: string; livemode: boolean; events: string[] }[]>;
  }

  async replaceSecret(id: string, secretSealed: string, now: Date): Promise<void> {
    await WebhookModel.update({ secretSealed, updatedAt: now }, { where: { id } });
  }

  /** False when it was already gone (a concurrent DELETE). */
  async delete(id: string): Promise<boolean> {
    return (await WebhookModel.destroy({ where: { id } })) > 0;
  }
}
