import type { ProjectScope } from '@billing/platform';
import { DEFAULT_SETTINGS, type PortalSettings } from '../../domain/portal-configuration';
import { settingsOf } from '../../configurations/settings-of';
import type { PortalDeps } from '../../portal-deps';

export interface StoredSettings {
  settings: PortalSettings;
  /** Null while the defaults apply. */
  updatedAt: Date | null;
}

/** GET /portal/configuration (docs/api-behaviour.md §24): the configuration, or the defaults. */
export async function getPortalConfiguration(deps: PortalDeps, scope: ProjectScope): Promise<StoredSettings> {
  const row = await deps.configurations.find(scope);
  return row
    ? { settings: settingsOf(row), updatedAt: row.updatedAt }
    : { settings: DEFAULT_SETTINGS, updatedAt: null };
}
