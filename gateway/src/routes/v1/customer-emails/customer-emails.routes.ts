import { z } from 'zod';
import { defineRoute, type ApiTag, type Resource } from '../../../http/route';
import { pageOf, scopeOf } from '../common.schemas';
import {
  CustomerEmailParams,
  customerEmailExample,
  CustomerEmailSchema,
  emailSettingsExample,
  EmailSettingsSchema,
  ListCustomerEmailsQuery,
  toCustomerEmail,
  toEmailSettings,
  UpdateEmailSettingsBody,
} from './customer-emails.schemas';

const customerEmailsTag: ApiTag = {
  name: 'Customer emails',
  description:
    'Emails the platform sends a project\u2019s customers in its name, when the settings enable them: a new invoice ' +
    'with something to pay (with its hosted page), a receipt, a failed payment (with the page to pay and a portal ' +
    'link to update the card), a trial ending, a cancellation and a credit note (with its PDF), each in the ' +
    'customer\u2019s locale (en or fr), once per event.',
};

export const emailSettingsResource: Resource = {
  tag: customerEmailsTag,
  prefixes: ['/email-settings'],
  routes: ({ notification }) => [
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'getEmailSettings',
      summary: "The project's customer email settings in this mode",
      description: 'Disabled, with no from_name and no reply_to, until they are set.',
      auth: 'apiKey',
      response: { status: 200, description: 'The settings', schema: EmailSettingsSchema },
      responseExample: emailSettingsExample,
      async handle({ auth: { apiKey } }) {
        const { settings } = await notification.getEmailSettings({ scope: scopeOf(apiKey) });
        return toEmailSettings(settings);
      },
    }),
    defineRoute({
      method: 'put',
      path: '',
      operationId: 'updateEmailSettings',
      summary: "Replace the project's customer email settings in this mode",
      description:
        'Replaces them whole (`enabled` false when absent; `from_name` and `reply_to` null when absent). They apply ' +
        'to the events of this mode from now on: an email already queued keeps the From name and Reply-To of its ' +
        'event\u2019s time. `from_name` is at most 100 characters; `reply_to` an email address (422 otherwise).',
      auth: 'apiKey',
      body: UpdateEmailSettingsBody,
      bodyExample: emailSettingsExample,
      response: { status: 200, description: 'The settings now', schema: EmailSettingsSchema },
      responseExample: emailSettingsExample,
      async handle({ auth: { apiKey }, body }) {
        const { settings } = await notification.updateEmailSettings({
          scope: scopeOf(apiKey),
          settings: {
            enabled: body.enabled,
            fromName: body.from_name ?? undefined,
            replyTo: body.reply_to ?? undefined,
          },
        });
        return toEmailSettings(settings);
      },
    }),
  ],
};

export const customerEmailsResource: Resource = {
  tag: customerEmailsTag,
  prefixes: ['/customers'],
  routes: ({ billing, notification }) => [
    defineRoute({
      method: 'get',
      path: '/:customer_id/emails',
      operationId: 'listCustomerEmails',
      summary: "A customer's emails, newest first",
      description:
        'Each email the platform wrote for one of the customer\u2019s events, with its status and attempts. Pages of ' +
        '`limit` (default 20, at most 100); the next page starts after the last id of this one (`starting_after`).',
      auth: 'apiKey',
      params: CustomerEmailParams,
      query: ListCustomerEmailsQuery,
      errors: {
        400: 'starting_after does not name an item of this list',
        403: 'Customer belongs to another project',
        404: 'Customer not found',
      },
      response: { status: 200, description: 'One page of emails', schema: z.array(CustomerEmailSchema) },
      responseExample: [customerEmailExample],
      async handle({ auth: { apiKey }, params, query }) {
        const scope = scopeOf(apiKey);
        // The customer is billing's: its answer (404, or 403 for another project's) decides
        // whether this key may see the customer's emails (docs/api-behaviour.md §1).
        await billing.getCustomer({ scope, customerId: params.customer_id });
        const { emails } = await notification.listCustomerEmails({
          scope,
          customerId: params.customer_id,
          page: pageOf(query),
        });
        return emails.map(toCustomerEmail);
      },
    }),
  ],
};
