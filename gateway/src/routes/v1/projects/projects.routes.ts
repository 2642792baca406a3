import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { iso, required } from '../common.schemas';
import {
  createdProjectExample,
  CreatedProjectSchema,
  CreateProjectBody,
  currentProjectExample,
  CurrentProjectSchema,
  projectExample,
  ProjectIdParams,
  ProjectSchema,
  toCreatedProject,
  toProject,
} from './projects.schemas';

export const projectsResource: Resource = {
  tag: {
    name: 'Projects',
    description:
      "A merchant's separate businesses or apps. Each project has its own API keys, plans, customers, " +
      'subscriptions, webhooks and test clock, in a test mode and a live mode that never see each other\u2019s data.',
  },
  prefixes: ['/projects', '/merchants/projects'],
  routes: ({ identity }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createProject',
      summary: 'Create a project with a test and a live key',
      description:
        'The project starts empty, with one test and one live API key whose secrets are in this response only.',
      auth: 'jwt',
      body: CreateProjectBody,
      bodyExample: { name: 'Acme Yoga' },
      response: {
        status: 201,
        description: 'The project and its keys (secrets shown only here)',
        schema: CreatedProjectSchema,
      },
      responseExample: createdProjectExample,
      async handle({ auth, body }) {
        const reply = await identity.createProject({ merchantId: auth.merchant.id, name: body.name });
        return toCreatedProject(required(reply.project, 'project'), reply.apiKeys);
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listProjects',
      summary: "The merchant's projects",
      description: 'Every project of the merchant, the one made at registration included.',
      auth: 'jwt',
      response: { status: 200, description: 'Every project of the merchant', schema: z.array(ProjectSchema) },
      responseExample: [projectExample],
      async handle({ auth }) {
        const { projects } = await identity.listProjects({ merchantId: auth.merchant.id });
        return projects.map(toProject);
      },
    }),
    // Before /:project_id, which would otherwise answer 404 for "current".
    defineRoute({
      method: 'get',
      path: '/current',
      operationId: 'getCurrentProject',
      summary: 'The project of the calling API key',
      description:
        'Tells a server which project and mode its API key works in: `livemode` is true for a live key. Handy as ' +
        'a start-up check of the configured key.',
      auth: 'apiKey',
      response: { status: 200, description: "The key's project", schema: CurrentProjectSchema },
      responseExample: currentProjectExample,
      async handle({ auth: { apiKey } }) {
        const { project } = await identity.getProject({ merchantId: apiKey.merchantId, projectId: apiKey.projectId });
        const { id, name, createdAt } = required(project, 'project');
        return { id, name, livemode: apiKey.livemode, created_at: iso(createdAt) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:project_id',
      operationId: 'getProject',
      summary: 'One project of the merchant',
      description: 'Its name and creation time; its keys are listed by `GET /api/v1/api-keys?project_id=`.',
      auth: 'jwt',
      params: ProjectIdParams,
      errors: { 403: 'Project belongs to another merchant', 404: 'Project not found' },
      response: { status: 200, description: 'The project', schema: ProjectSchema },
      responseExample: projectExample,
      async handle({ auth, params }) {
        const { project } = await identity.getProject({ merchantId: auth.merchant.id, projectId: params.project_id });
        return toProject(required(project, 'project'));
      },
    }),
  ],
};
