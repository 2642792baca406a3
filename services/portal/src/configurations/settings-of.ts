import type { CancellationMode, PlanChangeProration, PortalSettings } from '../domain/portal-configuration';
import { DEFAULT_SETTINGS } from '../domain/portal-configuration';
import type { PortalConfigurationModel } from '../db/models/portal-configuration.model';

/** A stored configuration as the rules read it. */
export function settingsOf(row: PortalConfigurationModel): PortalSettings {
  return {
    cancellation: row.cancellation as CancellationMode,
    planChangeEnabled: row.planChangeEnabled,
    planChangePlanIds: row.planChangePlanIds,
    planChangeProration: row.planChangeProration as PlanChangeProration,
    paymentMethodUpdate: row.paymentMethodUpdate,
    billingDetailsUpdate: row.billingDetailsUpdate,
    headline: row.headline,
    returnUrlDefault: row.returnUrlDefault,
  };
}

/** The settings the portal follows for a project and mode: the stored ones, else the defaults. */
export async function settingsFor(find: () => Promise<PortalConfigurationModel | null>): Promise<PortalSettings> {
  const row = await find();
  return row ? settingsOf(row) : DEFAULT_SETTINGS;
}
