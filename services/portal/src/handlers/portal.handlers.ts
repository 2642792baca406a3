import { requireScope, unaryService, type Logger, type UnaryHandlers } from '@billing/platform';
import type { portalV1 } from '@billing/proto';
import type { PortalSettings } from '../domain/portal-configuration';
import type { PortalDeps } from '../portal-deps';
import { getPortalConfiguration } from '../usecases/configurations/get-portal-configuration.usecase';
import { putPortalConfiguration } from '../usecases/configurations/put-portal-configuration.usecase';
import { createPortalSession } from '../usecases/sessions/create-portal-session.usecase';

const toConfiguration = (
  settings: PortalSettings,
  livemode: boolean,
  updatedAt: Date | null,
): portalV1.PortalConfiguration => ({
  cancellation: settings.cancellation,
  planChangeEnabled: settings.planChangeEnabled,
  planChangePlanIds: settings.planChangePlanIds,
  planChangeProration: settings.planChangeProration,
  paymentMethodUpdate: settings.paymentMethodUpdate,
  billingDetailsUpdate: settings.billingDetailsUpdate,
  headline: settings.headline ?? undefined,
  returnUrlDefault: settings.returnUrlDefault ?? undefined,
  livemode,
  updatedAt: updatedAt ?? undefined,
});

/** Thin: proto request -> use case -> proto response. */
export function portalHandlers(deps: PortalDeps, logger: Logger): portalV1.PortalServiceServer {
  const handlers: UnaryHandlers<portalV1.PortalServiceServer> = {
    async getPortalConfiguration(req) {
      const scope = requireScope(req.scope);
      const { settings, updatedAt } = await getPortalConfiguration(deps, scope);
      return { configuration: toConfiguration(settings, scope.livemode, updatedAt) };
    },
    async putPortalConfiguration(req) {
      const scope = requireScope(req.scope);
      const given = req.configuration;
      const row = await putPortalConfiguration(deps, scope, {
        cancellation: given?.cancellation ?? '',
        planChangeEnabled: given?.planChangeEnabled ?? false,
        planChangePlanIds: given?.planChangePlanIds ?? [],
        planChangeProration: given?.planChangeProration ?? '',
        paymentMethodUpdate: given?.paymentMethodUpdate ?? true,
        billingDetailsUpdate: given?.billingDetailsUpdate ?? true,
        headline: given?.headline,
        returnUrlDefault: given?.returnUrlDefault,
      });
      const { settings } = await getPortalConfiguration(deps, scope);
      return { configuration: toConfiguration(settings, scope.livemode, row.updatedAt) };
    },
    async createPortalSession(req) {
      const { session, url } = await createPortalSession(deps, requireScope(req.scope), {
        customerId: req.customerId,
        returnUrl: req.returnUrl,
      });
      return {
        id: session.id,
        customerId: session.customerId,
        url,
        expiresAt: session.linkExpiresAt,
        returnUrl: session.returnUrl ?? undefined,
        livemode: session.livemode,
        createdAt: session.createdAt,
      };
    },
  };
  return unaryService(handlers, logger);
}
