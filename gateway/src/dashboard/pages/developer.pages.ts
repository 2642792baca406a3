import type { Request, Router } from 'express';
import { HttpError } from '../../http/http-error';
import type { ApiKey, ApiKeyWithSecret, Delivery, DeliveryDetail, Webhook } from '../api-answers';
import { formOf, queryText } from '../form-fields';
import { frameFor, noticeOf, PAGE_SIZE, signedIn, type PageKit } from '../page-kit';
import { apiKeysPage } from '../views/api-keys.view';
import { webhookDeliveriesPage } from '../views/webhook-deliveries.view';
import { webhookDeliveryPage } from '../views/webhook-delivery.view';
import { webhooksPage } from '../views/webhooks.view';

/** Webhooks with their deliveries and attempts ("Resend delivery"), and the project's API keys. */
export function mountDeveloperPages(router: Router, kit: PageKit): void {
  const { call, page, onFirstPage, sessions } = kit;
  router.get('/webhooks', async (req, res) => {
    res.send(webhooksPage(frameFor(res, 'webhooks'), await call<Webhook[]>(req, res, 'listWebhooks')));
  });

  router.get('/webhooks/deliveries/:delivery_id', async (req: Request<{ delivery_id: string }>, res) => {
    const delivery = await call<DeliveryDetail>(req, res, 'getWebhookDelivery', {
      params: { delivery_id: req.params.delivery_id },
    });
    res.send(webhookDeliveryPage(frameFor(res, 'webhooks'), delivery, noticeOf(req)));
  });

  router.post('/webhooks/deliveries/:delivery_id/retry', async (req: Request<{ delivery_id: string }>, res) => {
    const params = { delivery_id: req.params.delivery_id };
    await call<Delivery>(req, res, 'retryWebhookDelivery', { params });
    res.redirect(303, `/dashboard/webhooks/deliveries/${encodeURIComponent(params.delivery_id)}?done=resent`);
  });

  router.get('/webhooks/:webhook_id', async (req: Request<{ webhook_id: string }>, res) => {
    const status = queryText(req, 'status');
    const deliveries = await call<Delivery[]>(req, res, 'listWebhookDeliveries', {
      params: { webhook_id: req.params.webhook_id },
      query: { status, ...page(req) },
    });
    // GET /webhooks is the only read of a webhook; the deliveries call above has refused a foreign or unknown id.
    const webhook = (await call<Webhook[]>(req, res, 'listWebhooks')).find((w) => w.id === req.params.webhook_id);
    if (!webhook) throw new HttpError(404, 'Webhook not found');
    res.send(
      webhookDeliveriesPage(frameFor(res, 'webhooks'), {
        webhook,
        status,
        deliveries,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
      }),
    );
  });

  router.get('/api-keys', async (req, res) => {
    const { session, caller } = signedIn(res);
    const [keys, secret] = await Promise.all([
      call<ApiKey[]>(req, res, 'listApiKeys', { query: { project_id: caller.projectId } }),
      sessions.takeSecret(session),
    ]);
    const revealed = secret ? (JSON.parse(secret) as { name: string; key: string }) : undefined;
    res.send(apiKeysPage(frameFor(res, 'apiKeys'), { keys, revealed, notice: noticeOf(req) }));
  });

  /** POST /api-keys in the chosen project and mode; the secret is kept sealed for the next page only. */
  router.post('/api-keys', async (req, res) => {
    const { session, caller } = signedIn(res);
    const created = await call<ApiKeyWithSecret>(req, res, 'createApiKey', {
      body: { project_id: caller.projectId, name: formOf(req).name, is_live: caller.livemode },
    });
    await sessions.keepSecret(session, JSON.stringify({ name: created.name, key: created.key }));
    res.redirect(303, '/dashboard/api-keys?done=created');
  });

  router.post('/api-keys/:api_key_id/revoke', async (req: Request<{ api_key_id: string }>, res) => {
    await call<void>(req, res, 'revokeApiKey', { params: { api_key_id: req.params.api_key_id } });
    res.redirect(303, '/dashboard/api-keys?done=revoked');
  });
}
