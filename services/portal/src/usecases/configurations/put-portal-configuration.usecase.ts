import { status as GrpcStatus } from '@grpc/grpc-js';
import { DomainError, isGrpcServiceError, type FieldViolation, type ProjectScope } from '@billing/platform';
import { parseSettings } from '../../domain/portal-configuration';
import type { PortalConfigurationModel } from '../../db/models/portal-configuration.model';
import type { PortalDeps } from '../../portal-deps';

export type ConfigurationInput = Parameters<typeof parseSettings>[0];

/**
 * PUT /portal/configuration (docs/api-behaviour.md §24): the whole configuration. The plans a
 * customer may change between must be active plans of this project and mode, all in one
 * currency: catalog, which owns plans, is asked for each.
 */
export async function putPortalConfiguration(
  deps: PortalDeps,
  scope: ProjectScope,
  input: ConfigurationInput,
): Promise<PortalConfigurationModel> {
  const settings = parseSettings(input);
  const violations: FieldViolation[] = [];
  const currencies = new Set<string>();
  for (const [index, planId] of settings.planChangePlanIds.entries()) {
    const loc = ['body', 'plan_change', 'plan_ids', index];
    try {
      const { plan } = await deps.catalog.getPlan({ scope, planId });
      if (!plan?.isActive) violations.push({ loc, msg: 'the plan is not active', type: 'value_error', input: planId });
      else currencies.add(plan.currency);
    } catch (err) {
      const code = isGrpcServiceError(err) ? err.code : undefined;
      if (
        code !== GrpcStatus.NOT_FOUND &&
        code !== GrpcStatus.PERMISSION_DENIED &&
        code !== GrpcStatus.INVALID_ARGUMENT
      ) {
        throw err;
      }
      violations.push({ loc, msg: 'no plan of this project and mode has this id', type: 'value_error', input: planId });
    }
  }
  if (currencies.size > 1) {
    violations.push({
      loc: ['body', 'plan_change', 'plan_ids'],
      msg: `the plans must share one currency (they are in ${[...currencies].sort().join(', ')})`,
      type: 'value_error',
    });
  }
  if (violations.length > 0) throw DomainError.invalid(violations);
  return deps.configurations.put(scope, settings, deps.clock.now());
}
