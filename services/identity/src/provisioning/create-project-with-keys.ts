import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { ProjectModel } from '../db/models';
import { defaultKeyName } from '../domain/api-key';
import type { IdentityDeps } from '../identity-deps';
import { issueApiKey, type IssuedApiKey } from './issue-api-key';

export interface CreatedProject {
  project: ProjectModel;
  apiKeys: IssuedApiKey[];
}

/** Creates a project with one test and one live key, inside the caller's transaction. */
export async function createProjectWithKeys(
  deps: IdentityDeps,
  merchantId: string,
  name: string,
  transaction: Transaction,
): Promise<CreatedProject> {
  const now = deps.clock.now();
  const project = await deps.projects.create({ id: randomUUID(), merchantId, name, createdAt: now }, transaction);
  const apiKeys: IssuedApiKey[] = [];
  for (const isLive of [false, true]) {
    apiKeys.push(
      await issueApiKey(deps, { merchantId, projectId: project.id, name: defaultKeyName(isLive), isLive }, transaction),
    );
  }
  return { project, apiKeys };
}
