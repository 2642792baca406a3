import type { Router } from 'express';
import type { EmailSettings, Plan, PortalConfiguration } from '../api-answers';
import { checkedOf, formOf, listOf, textOf } from '../form-fields';
import { frameFor, noticeOf, type PageKit } from '../page-kit';
import { emailSettingsPage } from '../views/email-settings.view';
import { portalConfigurationPage } from '../views/portal-configuration.view';

/** The customer portal's configuration and the customer emails' settings (docs/api-behaviour.md §24). */
export function mountSettingsPages(router: Router, kit: PageKit): void {
  const { call } = kit;
  router.get('/portal-configuration', async (req, res) => {
    const [config, plans] = await Promise.all([
      call<PortalConfiguration>(req, res, 'getPortalConfiguration'),
      call<Plan[]>(req, res, 'listPlans', { query: { is_active: 'true', limit: 100 } }),
    ]);
    res.send(portalConfigurationPage(frameFor(res, 'portal'), config, plans, noticeOf(req)));
  });

  router.post('/portal-configuration', async (req, res) => {
    const form = formOf(req);
    await call<PortalConfiguration>(req, res, 'putPortalConfiguration', {
      body: {
        cancellation: textOf(form.cancellation),
        plan_change: {
          enabled: checkedOf(form.plan_change_enabled),
          plan_ids: listOf(form.plan_ids),
          proration: textOf(form.proration),
        },
        payment_method_update: checkedOf(form.payment_method_update),
        billing_details_update: checkedOf(form.billing_details_update),
        headline: textOf(form.headline),
        return_url_default: textOf(form.return_url_default),
      },
    });
    res.redirect(303, '/dashboard/portal-configuration?done=saved');
  });

  router.get('/email-settings', async (req, res) => {
    const settings = await call<EmailSettings>(req, res, 'getEmailSettings');
    res.send(emailSettingsPage(frameFor(res, 'emails'), settings, noticeOf(req)));
  });

  router.post('/email-settings', async (req, res) => {
    const form = formOf(req);
    await call<EmailSettings>(req, res, 'updateEmailSettings', {
      body: {
        enabled: checkedOf(form.enabled),
        from_name: textOf(form.from_name) ?? null,
        reply_to: textOf(form.reply_to) ?? null,
      },
    });
    res.redirect(303, '/dashboard/email-settings?done=saved');
  });
}
