import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { defaultKeyName, generateApiKey } from '../../domain/api-key';
import { assertName } from '../../domain/merchant-rules';
import type { ApiKeyModel, ProjectModel } from '../../db/models';
import type { IdentityDeps } from '../../identity-deps';
import { requireActiveMerchant } from '../merchants/get-merchant.usecase';

export interface IssuedApiKey {
  model: ApiKeyModel;
  /** The full secret: returned once, never stored. */
  key: string;
}

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

export async function issueApiKey(
  deps: IdentityDeps,
  input: { merchantId: string; projectId: string; name: string; isLive: boolean },
  transaction: Transaction,
): Promise<IssuedApiKey> {
  const generated = generateApiKey(input.isLive);
  const model = await deps.apiKeys.create(
    {
      id: randomUUID(),
      projectId: input.projectId,
      merchantId: input.merchantId,
      name: input.name,
      keyHash: generated.keyHash,
      keyPrefix: generated.keyPrefix,
      last4: generated.last4,
      isLive: input.isLive,
      createdAt: deps.clock.now(),
    },
    transaction,
  );
  return { model, key: generated.key };
}

export async function createProject(deps: IdentityDeps, merchantId: string, name: string): Promise<CreatedProject> {
  assertName(name, 'name');
  await requireActiveMerchant(deps, merchantId);
  return deps.sequelize.transaction((transaction) => createProjectWithKeys(deps, merchantId, name.trim(), transaction));
}
