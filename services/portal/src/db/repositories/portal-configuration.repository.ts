import { randomUUID } from 'node:crypto';
import { scopeWhere, type ProjectScope } from '@billing/platform';
import type { PortalSettings } from '../../domain/portal-configuration';
import { PortalConfigurationModel } from '../models/portal-configuration.model';

export class PortalConfigurationRepository {
  /** The project and mode's configuration; null while none was written (the defaults apply). */
  find(scope: Pick<ProjectScope, 'projectId' | 'livemode'>): Promise<PortalConfigurationModel | null> {
    return PortalConfigurationModel.findOne({ where: { projectId: scope.projectId, livemode: scope.livemode } });
  }

  /** Writes the whole configuration: one row per project and mode, whoever writes first. */
  async put(scope: ProjectScope, settings: PortalSettings, now: Date): Promise<PortalConfigurationModel> {
    const values = {
      cancellation: settings.cancellation,
      planChangeEnabled: settings.planChangeEnabled,
      planChangePlanIds: settings.planChangePlanIds,
      planChangeProration: settings.planChangeProration,
      paymentMethodUpdate: settings.paymentMethodUpdate,
      billingDetailsUpdate: settings.billingDetailsUpdate,
      headline: settings.headline,
      returnUrlDefault: settings.returnUrlDefault,
      updatedAt: now,
    };
    await PortalConfigurationModel.bulkCreate(
      [{ id: randomUUID(), projectId: scope.projectId, livemode: scope.livemode, createdAt: now, ...values }],
      {
        updateOnDuplicate: [...Object.keys(values)] as (keyof PortalConfigurationModel)[],
        conflictAttributes: ['projectId', 'livemode'],
      },
    );
    return (await PortalConfigurationModel.findOne({ where: scopeWhere(scope) }))!;
  }
}
