import { html } from '@billing/platform';
import type { Plan, PortalConfiguration } from '../api-answers';
import { csrfField, dashboardPage, money, notice, select, type Frame } from './layout';

const CANCELLATION: [string, string][] = [
  ['AT_PERIOD_END', 'At the end of the period'],
  ['IMMEDIATELY', 'Immediately, with the cancellation policy refund'],
  ['NONE', 'Not offered'],
];
const PRORATION: [string, string][] = [
  ['IMMEDIATE', 'Prorate now'],
  ['NONE', 'No proration'],
];

const checkbox = (id: string, name: string, label: string, checked: boolean, value = 'true') =>
  html`<div class="check">
    <input type="checkbox" id="${id}" name="${name}" value="${value}" ${checked ? html` checked` : ''} />
    <label for="${id}">${label}</label>
  </div>`;

/** What the customer portal offers (GET and PUT /portal/configuration, docs/api-behaviour.md §24). */
export function portalConfigurationPage(
  frame: Frame,
  config: PortalConfiguration,
  plans: Plan[],
  done?: string,
): string {
  return dashboardPage(
    frame,
    'Customer portal',
    html`${notice(done)}
      <p>
        What customers may do in the portal that <code>POST /api/v1/portal/sessions</code> opens for them.
        ${config.updated_at ? '' : ' The defaults apply until you save.'}
      </p>
      <form method="post" action="/dashboard/portal-configuration" class="stacked">
        ${csrfField(frame.csrfToken)}
        ${select('portal-cancellation', 'cancellation', 'Cancel subscription', CANCELLATION, config.cancellation)}
        <fieldset>
          <legend>Change plan</legend>
          ${checkbox('portal-plan-change', 'plan_change_enabled', 'Customers may change plan', config.plan_change.enabled)}
          <fieldset class="inner">
            <legend>Plans they may choose (active, one currency)</legend>
            ${plans.length === 0 ? html`<p class="hint">No active plan yet.</p>` : ''}
            ${plans.map((p) =>
              checkbox(
                `portal-plan-${p.id}`,
                'plan_ids',
                `${p.name} (${money(p.amount, p.currency)} ${p.interval})`,
                config.plan_change.plan_ids.includes(p.id),
                p.id,
              ),
            )}
          </fieldset>
          ${select('portal-proration', 'proration', 'Proration', PRORATION, config.plan_change.proration)}
        </fieldset>
        ${checkbox('portal-card', 'payment_method_update', 'Customers may update their card', config.payment_method_update)}
        ${checkbox('portal-details', 'billing_details_update', 'Customers may update their billing details', config.billing_details_update)}
        <label for="portal-headline">Headline (optional)</label>
        <input id="portal-headline" name="headline" type="text" maxlength="100" value="${config.headline ?? ''}" />
        <label for="portal-return">Default return address (optional)</label>
        <input id="portal-return" name="return_url_default" type="url" value="${config.return_url_default ?? ''}" />
        <button type="submit">Save portal configuration</button>
      </form>`,
  );
}
