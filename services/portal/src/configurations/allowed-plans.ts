import type { ProjectScope } from '@billing/platform';
import type { catalogV1 } from '@billing/proto';
import type { PortalSettings } from '../domain/portal-configuration';
import type { PortalDeps } from '../portal-deps';

/**
 * The plans "Change plan" offers: the configuration's, in its order, as catalog has them now;
 * one deactivated since the configuration was written is left out (the change would refuse it).
 */
export async function allowedPlans(
  deps: PortalDeps,
  scope: ProjectScope,
  settings: PortalSettings,
): Promise<catalogV1.Plan[]> {
  if (!settings.planChangeEnabled) return [];
  const plans = await Promise.all(
    settings.planChangePlanIds.map(async (planId) => {
      try {
        return (await deps.catalog.getPlan({ scope, planId })).plan ?? null;
      } catch {
        return null;
      }
    }),
  );
  return plans.filter((plan): plan is catalogV1.Plan => plan !== null && plan.isActive);
}
