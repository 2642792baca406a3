import type { ProjectScope } from '@billing/platform';
import { DEFAULT_EMAIL_SETTINGS, type EmailSettings } from '../../domain/customer-emails';
import { EmailSettingsModel } from '../models/customer-email.model';

/** The customer email settings of each project and mode (docs/api-behaviour.md §24). */
export class EmailSettingsRepository {
  /** The defaults (disabled) when the project and mode never set them. */
  async get(scope: ProjectScope): Promise<EmailSettings> {
    const row = await EmailSettingsModel.findOne({ where: { projectId: scope.projectId, livemode: scope.livemode } });
    return row ? { enabled: row.enabled, fromName: row.fromName, replyTo: row.replyTo } : DEFAULT_EMAIL_SETTINGS;
  }

  /** Replaces them in one statement (a concurrent PUT: the last one wins, whole). */
  async put(scope: ProjectScope, settings: EmailSettings, now: Date): Promise<void> {
    await EmailSettingsModel.upsert({
      projectId: scope.projectId,
      livemode: scope.livemode,
      enabled: settings.enabled,
      fromName: settings.fromName,
      replyTo: settings.replyTo,
      updatedAt: now,
    });
  }
}
