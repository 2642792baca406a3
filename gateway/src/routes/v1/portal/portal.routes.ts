import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CreatePortalSessionBody,
  portalConfigurationExample,
  PortalConfigurationSchema,
  portalSessionExample,
  PortalSessionSchema,
  PutPortalConfigurationBody,
  toPortalConfiguration,
  toPortalSession,
} from './portal.schemas';

export const portalResource: Resource = {
  tag: {
    name: 'Customer portal',
    description:
      'A page where a customer sees their subscriptions, invoices, balance, card and billing details, and cancels, ' +
      'changes plan, updates the card or the billing details, as the configuration of the project and mode allows ' +
      '(docs/api-behaviour.md §24). Each action does exactly what the API does.',
  },
  prefixes: ['/portal'],
  routes: ({ portal }) => [
    defineRoute({
      method: 'get',
      path: '/configuration',
      operationId: 'getPortalConfiguration',
      summary: 'The customer portal configuration',
      description:
        "Of the key's project and mode; before any PUT the defaults: cancellation `AT_PERIOD_END`, plan changes off, " +
        'card and billing-details updates on, no headline and no return URL (`updated_at` null).',
      auth: 'apiKey',
      response: { status: 200, description: 'The configuration', schema: PortalConfigurationSchema },
      responseExample: { ...portalConfigurationExample, livemode: false, updated_at: '2026-03-02T09:15:00.000Z' },
      async handle({ auth: { apiKey } }) {
        const { configuration } = await portal.getPortalConfiguration({ scope: scopeOf(apiKey) });
        return toPortalConfiguration(required(configuration, 'configuration'));
      },
    }),
    defineRoute({
      method: 'put',
      path: '/configuration',
      operationId: 'putPortalConfiguration',
      summary: 'Replace the customer portal configuration',
      description:
        "The whole configuration of the key's project and mode. `plan_change.plan_ids` must name active plans of " +
        'this project and mode, all in one currency, at least two when plan changes are enabled: otherwise 422 ' +
        'naming the plan. The portal follows it from its next page.',
      auth: 'apiKey',
      body: PutPortalConfigurationBody,
      bodyExample: portalConfigurationExample,
      response: { status: 200, description: 'The configuration', schema: PortalConfigurationSchema },
      responseExample: { ...portalConfigurationExample, livemode: false, updated_at: '2026-03-02T09:15:00.000Z' },
      async handle({ auth: { apiKey }, body }) {
        const { configuration } = await portal.putPortalConfiguration({
          scope: scopeOf(apiKey),
          configuration: {
            cancellation: body.cancellation,
            planChangeEnabled: body.plan_change.enabled,
            planChangePlanIds: body.plan_change.plan_ids,
            planChangeProration: body.plan_change.proration,
            paymentMethodUpdate: body.payment_method_update,
            billingDetailsUpdate: body.billing_details_update,
            headline: body.headline,
            returnUrlDefault: body.return_url_default,
            livemode: apiKey.livemode,
          },
        });
        return toPortalConfiguration(required(configuration, 'configuration'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/sessions',
      operationId: 'createPortalSession',
      summary: 'Open the customer portal for one customer',
      description:
        '`url` opens the portal for that customer: once, within 10 minutes of `created_at` (`expires_at`); the ' +
        'browser session it starts lasts while the customer is active, ending after an hour without a request. ' +
        'Afterwards the link shows a page saying it expired and nothing else. Send the customer there straight ' +
        "away; never keep or share the URL. An unknown customer -> 404, another project's -> 403.",
      auth: 'apiKey',
      body: CreatePortalSessionBody,
      bodyExample: { customer_id: portalSessionExample.customer_id, return_url: portalSessionExample.return_url },
      errors: { 403: 'Customer belongs to another project', 404: 'Customer not found' },
      response: { status: 201, description: 'The session and its URL', schema: PortalSessionSchema },
      responseExample: portalSessionExample,
      async handle({ auth: { apiKey }, body }) {
        return toPortalSession(
          await portal.createPortalSession({
            scope: scopeOf(apiKey),
            customerId: body.customer_id,
            returnUrl: body.return_url,
          }),
        );
      },
    }),
  ],
};
