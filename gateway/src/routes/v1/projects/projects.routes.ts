import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { iso, required } from '../common.schemas';
import {
  CreatedProjectSchema,
  CreateProjectBody,
  CurrentProjectSchema,
  ProjectIdParams,
  ProjectSchema,
  toCreatedProject,
  toProject,
} from './projects.schemas';

export const projectsResource: Resource = {
  tag: 'Projects',
  prefixes: ['/projects', '/merchants/projects'],
  routes: ({ identity }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: 'Create a project with a test and a live key',
      auth: 'jwt',
      body: CreateProjectBody,
      response: {
        status: 201,
        description: 'The project and its keys (secrets shown only here)',
        schema: CreatedProjectSchema,
      },
      async handle({ auth, body }) {
        const reply = await identity.createProject({ merchantId: auth.merchant.id, name: body.name });
        return toCreatedProject(required(reply.project, 'project'), reply.apiKeys);
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: "The merchant's projects",
      auth: 'jwt',
      response: { status: 200, description: 'Every project of the merchant', schema: z.array(ProjectSchema) },
      async handle({ auth }) {
        const { projects } = await identity.listProjects({ merchantId: auth.merchant.id });
        return projects.map(toProject);
      },
    }),
    // Before /:project_id, which would otherwise answer 404 for "current".
    defineRoute({
      method: 'get',
      path: '/current',
      summary: 'The project of the calling API key',
      description: '`livemode` tells whether the key is a live key.',
      auth: 'apiKey',
      response: { status: 200, description: "The key's project", schema: CurrentProjectSchema },
      async handle({ auth: { apiKey } }) {
        const { project } = await identity.getProject({ merchantId: apiKey.merchantId, projectId: apiKey.projectId });
        const { id, name, createdAt } = required(project, 'project');
        return { id, name, livemode: apiKey.livemode, created_at: iso(createdAt) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:project_id',
      summary: 'One project of the merchant',
      auth: 'jwt',
      params: ProjectIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The project', schema: ProjectSchema },
      async handle({ auth, params }) {
        const { project } = await identity.getProject({ merchantId: auth.merchant.id, projectId: params.project_id });
        return toProject(required(project, 'project'));
      },
    }),
  ],
};
