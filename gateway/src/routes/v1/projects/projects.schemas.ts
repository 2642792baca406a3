import { z } from 'zod';
import type { identityV1 } from '@billing/proto';
import { ApiKeyWithSecretSchema, newKeyPairExample, toKeyPair } from '../api-keys/api-keys.schemas';
import { displayName, EXAMPLE, idParam, iso, timestamp } from '../common.schemas';

export const ProjectSchema = z
  .object({ id: z.uuid(), name: z.string(), created_at: timestamp })
  .meta({ id: 'Project' });

export const CreatedProjectSchema = ProjectSchema.extend({
  api_keys: z.array(ApiKeyWithSecretSchema).meta({ description: "The new project's test key, then its live key" }),
}).meta({ id: 'CreatedProject' });

export const CurrentProjectSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    livemode: z.boolean().meta({ description: 'true when called with a live key' }),
    created_at: timestamp,
  })
  .meta({ id: 'CurrentProject' });

export const CreateProjectBody = z.object({ name: displayName }).meta({ id: 'CreateProjectRequest' });

export const ProjectIdParams = z.object({ project_id: idParam('Project') });

export const toProject = (project: identityV1.Project): z.input<typeof ProjectSchema> => ({
  id: project.id,
  name: project.name,
  created_at: iso(project.createdAt),
});

export const toCreatedProject = (
  project: identityV1.Project,
  apiKeys: identityV1.ApiKey[],
): z.input<typeof CreatedProjectSchema> => ({ ...toProject(project), api_keys: toKeyPair(apiKeys) });

export const projectExample = {
  id: EXAMPLE.projectId,
  name: 'Acme Fitness',
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof ProjectSchema>;

export const createdProjectExample = {
  ...projectExample,
  name: 'Acme Yoga',
  api_keys: newKeyPairExample,
} satisfies z.input<typeof CreatedProjectSchema>;

export const currentProjectExample = {
  ...projectExample,
  livemode: false,
} satisfies z.input<typeof CurrentProjectSchema>;
