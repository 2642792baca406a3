import { DomainError, type ProjectScope } from '@billing/platform';
import { emailSettingsViolations, type EmailSettings } from '../../domain/customer-emails';
import type { EmailDeps } from '../../notification-deps';

/**
 * PUT /email-settings (docs/api-behaviour.md §24): replaces the project's settings in this mode.
 * They apply to the events consumed from now on; an email already queued keeps the from_name and
 * reply_to of its event's time.
 */
export async function updateEmailSettings(
  deps: EmailDeps,
  scope: ProjectScope,
  settings: EmailSettings,
): Promise<EmailSettings> {
  const violations = emailSettingsViolations(settings);
  if (violations.length > 0) throw DomainError.invalid(violations);
  await deps.emailSettings.put(scope, settings, deps.clock.now());
  return deps.emailSettings.get(scope);
}
