import { findOwnProject } from '../../access/find-own-project';
import type { ProjectModel } from '../../db/models';
import type { IdentityDeps } from '../../identity-deps';

/** 404 when no such project exists, 403 when it belongs to another merchant. */
export function getProject(deps: IdentityDeps, merchantId: string, projectId: string): Promise<ProjectModel> {
  return findOwnProject(deps, merchantId, projectId);
}
