import { DomainError } from '@billing/platform';
import type { ProjectModel } from '../db/models';
import { isUuid } from '../domain/merchant-rules';
import type { IdentityDeps } from '../identity-deps';

/** 404 when no such project exists, 403 when it belongs to another merchant. */
export async function findOwnProject(deps: IdentityDeps, merchantId: string, projectId: string): Promise<ProjectModel> {
  const project = isUuid(projectId) ? await deps.projects.findById(projectId) : null;
  if (!project) throw new DomainError('not_found', 'Project not found');
  if (project.merchantId !== merchantId)
    throw new DomainError('permission_denied', 'Project belongs to another merchant');
  return project;
}
