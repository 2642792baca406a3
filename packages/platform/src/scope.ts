import type { ModelStatic, WhereOptions } from 'sequelize';
import { DomainError } from './errors';
import { isUuid } from './paging';
import type { ProjectScopedModel } from './project-scoped-model';

/** The project and mode a request acts in, from the verified API key. */
export interface ProjectScope {
  projectId: string;
  merchantId: string;
  livemode: boolean;
}

/** The project and mode a stored row belongs to (a batch of rows may span projects). */
export type RowScope = Pick<ProjectScope, 'projectId' | 'livemode'>;

/** The tenant filter every query of a project-scoped table starts from. */
export const scopeWhere = (scope: ProjectScope) => ({ projectId: scope.projectId, livemode: scope.livemode });

/** Reads the scope a gRPC request carries; a request without one is a programming error. */
export function requireScope(
  scope: { projectId: string; merchantId: string; livemode: boolean } | undefined,
): ProjectScope {
  if (!scope?.projectId) throw new DomainError('invalid_argument', 'scope is required');
  return { projectId: scope.projectId, merchantId: scope.merchantId, livemode: scope.livemode };
}

/**
 * Finds a record by id inside the scope. docs/api-behaviour.md §1: an id of another project is 403;
 * an unknown id, a malformed one, or one of the other mode of this project is 404 (the two
 * modes share nothing).
 */
export async function findInScope<M extends ProjectScopedModel>(
  model: ModelStatic<M>,
  scope: ProjectScope,
  id: string,
  what: string,
  /** Another unique column to look the record up by (e.g. a checkout session's code). */
  lookup: { field: string; isValid: (value: string) => boolean } = { field: 'id', isValid: isUuid },
): Promise<M> {
  const record = lookup.isValid(id) ? await model.findOne({ where: { [lookup.field]: id } as WhereOptions }) : null;
  if (!record) throw new DomainError('not_found', `${what} not found`);
  if (record.projectId !== scope.projectId)
    throw new DomainError('permission_denied', `${what} belongs to another project`);
  if (record.livemode !== scope.livemode) {
    throw new DomainError('not_found', `${what} not found`);
  }
  return record;
}
