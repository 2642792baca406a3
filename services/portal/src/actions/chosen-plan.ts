import { DomainError } from '@billing/platform';
import type { catalogV1 } from '@billing/proto';
import { notOffered } from './action-rules';
import { allowedPlans } from '../configurations/allowed-plans';
import { settingsFor } from '../configurations/settings-of';
import type { PortalSettings } from '../domain/portal-configuration';
import type { PortalSessionModel } from '../db/models/portal-session.model';
import { scopeOf } from '../browser-sessions/browser-session';
import type { PortalDeps } from '../portal-deps';

/** The plan a "Change plan" form names: one the configuration offers, else 404 (as any other id). */
export async function chosenPlan(
  deps: PortalDeps,
  session: PortalSessionModel,
  planId: unknown,
): Promise<{ plan: catalogV1.Plan; settings: PortalSettings }> {
  const scope = scopeOf(session);
  const settings = await settingsFor(() => deps.configurations.find(scope));
  if (!settings.planChangeEnabled) throw notOffered('Changing plans');
  const plan = (await allowedPlans(deps, scope, settings)).find((candidate) => candidate.id === planId);
  if (!plan) throw new DomainError('not_found', 'Plan not found');
  return { plan, settings };
}
