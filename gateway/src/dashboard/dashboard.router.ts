import { randomUUID } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CUSTOMER_PAGE_HEADERS, isGrpcServiceError, readRemoteError, type Logger } from '@billing/platform';
import type { IdentityClient } from '../clients/identity.client';
import { HttpError } from '../http/http-error';
import { verifyToken, type AuthenticatedMerchant } from '../middleware/auth';
import { errorResponseOf } from '../middleware/errors';
import type { RateLimits } from '../middleware/rate-limit';
import type {
  AccessToken,
  AnalyticsSummary,
  ApiKey,
  ApiKeyWithSecret,
  Coupon,
  CreditNote,
  Customer,
  CustomerDetail,
  CustomerEmail,
  Delivery,
  DeliveryDetail,
  EmailSettings,
  Invoice,
  MrrMonth,
  Plan,
  PortalConfiguration,
  Project,
  RevenueMonth,
  Subscription,
  TaxRate,
  Webhook,
} from './api-answers';
import { apiKeyPrincipalOf, type DashboardApi, type DashboardCaller } from './dashboard-api';
import type { DashboardSessions, LiveSession } from './dashboard-sessions';
import { checkedOf, formOf, listOf, numberOf, queryText, textOf } from './form-fields';
import { apiKeysPage } from './views/api-keys.view';
import { couponsPage } from './views/coupons.view';
import { customerPage } from './views/customer.view';
import { customersPage } from './views/customers.view';
import { emailSettingsPage } from './views/email-settings.view';
import { homePage } from './views/home.view';
import { invoicePage } from './views/invoice.view';
import { invoicesPage } from './views/invoices.view';
import { SECTIONS, sectionPath, type Frame, type Section } from './views/layout';
import { messagePage } from './views/message.view';
import { plansPage } from './views/plans.view';
import { portalConfigurationPage } from './views/portal-configuration.view';
import { signInPage } from './views/sign-in.view';
import { subscriptionsPage } from './views/subscriptions.view';
import { taxRatesPage } from './views/tax-rates.view';
import { webhookDeliveriesPage } from './views/webhook-deliveries.view';
import { webhookDeliveryPage } from './views/webhook-delivery.view';
import { webhooksPage } from './views/webhooks.view';

export interface DashboardDeps {
  api: DashboardApi;
  sessions: DashboardSessions;
  identity: IdentityClient;
  /** /auth/login's limiters, reused: signing in here spends the same budgets (docs/api-behaviour.md §17.5). */
  rateLimits: RateLimits;
  logger: Logger;
}

/**
 * The customer pages' headers (never cached, framed or sent on as a referrer), with a policy that
 * lets the dashboard load its own stylesheet and scripts (served below, from this origin) and
 * nothing else: no inline script or style, forms posted only here.
 */
export const DASHBOARD_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...CUSTOMER_PAGE_HEADERS,
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
    "base-uri 'none'; frame-ancestors 'none'",
};

/** The API's default page size (docs/api-behaviour.md §1); "Next page" follows a full page. */
const PAGE_SIZE = 20;

/** The files under /dashboard/assets: ours from gateway/public/dashboard, Chart.js's UMD build from node_modules. */
const PUBLIC_DIR = resolve(__dirname, '../../public/dashboard');
const ASSET_FILES: Record<string, string> = {
  'dashboard.css': join(PUBLIC_DIR, 'dashboard.css'),
  'dashboard.js': join(PUBLIC_DIR, 'dashboard.js'),
  'chart.umd.min.js': join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'),
};

/** What a signed-in request carries from the session middleware to its page. */
interface SignedIn {
  session: LiveSession;
  caller: DashboardCaller;
  frame: Frame;
}

const signedIn = (res: Response): SignedIn => {
  const state = res.locals.dashboard as SignedIn | undefined;
  if (!state) throw new Error('a dashboard page mounted before the session middleware');
  return state;
};

const frameFor = (res: Response, section: Section): Frame => ({ ...signedIn(res).frame, section });

/** The section a path is in, for the navigation of its page (error pages included). */
function sectionOf(path: string): Section {
  const first = `/${path.split('/')[1] ?? ''}`;
  const found = (Object.keys(SECTIONS) as Section[]).find((s) => SECTIONS[s].path === first);
  return found ?? 'home';
}

/** Where a switch may send the browser back: a section's page of the dashboard, nothing else. */
function returnPath(value: unknown): string {
  const text = textOf(value);
  const section = (Object.keys(SECTIONS) as Section[]).find((s) => sectionPath(s) === text);
  return section ? sectionPath(section) : '/dashboard';
}

/**
 * The session's merchant if still active, as an access token is checked on every request
 * (middleware/auth.ts); identity refuses a deactivated merchant (PERMISSION_DENIED) or a gone one.
 */
async function activeMerchant(
  identity: IdentityClient,
  merchantId: string,
): Promise<AuthenticatedMerchant | undefined> {
  try {
    const { merchant } = await identity.getMerchant({ merchantId });
    return merchant?.isActive ? merchant : undefined;
  } catch (err) {
    const code = isGrpcServiceError(err) ? readRemoteError(err).code : undefined;
    if (code === GrpcStatus.PERMISSION_DENIED || code === GrpcStatus.NOT_FOUND) return undefined;
    throw err;
  }
}

/** Fixed notices after a change, by the code its redirect carries: nothing a URL says is shown as such. */
const NOTICES: Record<string, string> = {
  credit_note: 'Credit note issued.',
  resent: 'Delivery resent: one attempt was made now.',
  created: 'API key created.',
  revoked: 'API key revoked: calls with it are refused from now on.',
  saved: 'Saved.',
  plan_created: 'Plan created.',
  coupon_created: 'Coupon created.',
  tax_rate_created: 'Tax rate created.',
};
const noticeOf = (req: Request) => NOTICES[queryText(req, 'done') ?? ''];

const TITLES: Record<number, string> = {
  400: 'Not possible',
  401: 'Not signed in',
  402: 'Payment declined',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too much',
  422: 'Please check the details',
  429: 'Too many requests',
  503: 'Try again in a moment',
};

/**
 * The merchant dashboard at /dashboard (docs/api-behaviour.md §25; docs/decisions.md, "Dashboard:
 * server-rendered pages of the gateway that call the API's own operations"). Every page reads and
 * every form changes through DashboardApi, as the signed-in merchant in the chosen project and mode.
 */
export function dashboardRouter(deps: DashboardDeps): Router {
  const { api, sessions, identity, rateLimits, logger } = deps;
  const router = express.Router();

  router.get('/assets/:name', (req: Request<{ name: string }>, res, next) => {
    const file = ASSET_FILES[req.params.name];
    if (!file) return next();
    res.sendFile(file, {
      headers: { 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' },
    });
  });

  router.use((_req, res, next) => {
    res.set(DASHBOARD_PAGE_HEADERS);
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: '1mb', parameterLimit: 200 }));

  // --- Signing in: POST /auth/login's operation, behind /auth/login's own limiters.

  router.get('/sign-in', async (req, res) => {
    if (await sessions.live(req)) return res.redirect(303, '/dashboard');
    res.send(signInPage(sessions.signInToken(res)));
  });

  router.post(
    '/sign-in',
    rateLimits.perAuthAddress(),
    rateLimits.loginFailuresPerEmail(),
    async (req: Request, res: Response) => {
      const form = formOf(req);
      const email = typeof form.email === 'string' ? form.email : '';
      if (!sessions.signInTokenHolds(req, form.csrf_token)) {
        throw new HttpError(403, 'This sign-in form has expired; open the sign-in page again');
      }
      let token: AccessToken;
      try {
        token = await api.call<AccessToken>(
          'loginMerchant',
          undefined,
          { body: { email: form.email, password: form.password } },
          req,
        );
      } catch (err) {
        const refusal = errorResponseOf(err, req, logger);
        // A 401 is a failed attempt: it counts against the email's budget (loginFailuresPerEmail).
        if (refusal.status !== 401) throw err;
        res.status(401).send(signInPage(sessions.signInToken(res), email, String(refusal.body.detail)));
        return;
      }
      const merchant = await verifyToken({ identity }, token.access_token);
      const caller = { merchant, projectId: '', livemode: true };
      const [first] = await api.call<Project[]>('listProjects', caller, {}, req);
      if (!first) throw new HttpError(400, 'This merchant has no project');
      // Live mode first: the business as it is; "Switch to test mode" is on every page. A session
      // this browser had is ended: one sign-in, one session.
      await sessions.start(res, merchant.id, first.id, true, await sessions.live(req));
      res.redirect(303, '/dashboard');
    },
  );

  // --- Everything else: a live session (else the sign-in page), its CSRF token on every POST.

  router.use(async (req, res, next) => {
    const session = await sessions.live(req);
    if (!session) return res.redirect(303, '/dashboard/sign-in');
    const merchant = await activeMerchant(identity, session.merchantId);
    if (!merchant) {
      await sessions.end(res, session);
      return res.redirect(303, '/dashboard/sign-in');
    }
    const caller: DashboardCaller = { merchant, projectId: session.projectId, livemode: session.livemode };
    if (req.method === 'POST' && !sessions.csrfHolds(session, formOf(req).csrf_token)) {
      res.locals.dashboard = { session, caller, frame: undefined };
      throw new HttpError(403, 'This form has expired or did not come from this dashboard; reload the page');
    }
    const projects = await api.call<Project[]>('listProjects', caller, {}, req);
    // The switch only ever stores a project GET /projects/{id} answered for this merchant; checked
    // again here, for free, against the list the frame shows.
    if (!projects.some((p) => p.id === session.projectId)) {
      await sessions.end(res, session);
      return res.redirect(303, '/dashboard/sign-in');
    }
    const frame: Frame = {
      merchantName: merchant.businessName,
      merchantEmail: merchant.email,
      projects: projects.map((p) => ({ id: p.id, name: p.name })),
      projectId: session.projectId,
      livemode: session.livemode,
      csrfToken: session.csrfToken,
      section: sectionOf(req.path),
    };
    res.locals.dashboard = { session, caller, frame } satisfies SignedIn;
    // The API's per-key limit (§14): the pages of a project and mode count as one key of it.
    req.auth = { merchant, apiKey: apiKeyPrincipalOf(caller) };
    next();
  });
  router.use(rateLimits.perApiKey());

  const call = <T>(req: Request, res: Response, operationId: string, input: Parameters<DashboardApi['call']>[2] = {}) =>
    api.call<T>(operationId, signedIn(res).caller, input, req);
  const page = (req: Request) => ({
    limit: PAGE_SIZE,
    starting_after: queryText(req, 'starting_after'),
  });
  const onFirstPage = (req: Request) => queryText(req, 'starting_after') === undefined;

  router.post('/sign-out', async (_req, res) => {
    await sessions.end(res, signedIn(res).session);
    res.redirect(303, '/dashboard/sign-in');
  });

  /** The project and mode switches: the project must be the merchant's (GET /projects/{id} as them). */
  router.post('/switch', async (req, res) => {
    const form = formOf(req);
    const mode = textOf(form.mode);
    if (mode !== 'test' && mode !== 'live') throw new HttpError(400, 'Choose test or live mode');
    const project = await call<Project>(req, res, 'getProject', { params: { project_id: textOf(form.project_id) } });
    await sessions.choose(signedIn(res).session, project.id, mode === 'live');
    res.redirect(303, returnPath(form.return_to));
  });

  router.get('/', async (req, res) => {
    const currency = queryText(req, 'currency') ?? 'NGN';
    // No from/to: the routes' own default, the last 12 months of the project's clock (§25).
    const query = { currency };
    const [summary, mrr, revenue] = await Promise.all([
      call<AnalyticsSummary>(req, res, 'getAnalyticsSummary', { query }),
      call<MrrMonth[]>(req, res, 'getAnalyticsMrr', { query }),
      call<RevenueMonth[]>(req, res, 'getAnalyticsRevenue', { query }),
    ]);
    res.send(homePage(frameFor(res, 'home'), { currency: currency.toUpperCase(), summary, mrr, revenue }));
  });

  router.get('/customers', async (req, res) => {
    const email = queryText(req, 'email');
    const customers = await call<Customer[]>(req, res, 'listCustomers', { query: { email, ...page(req) } });
    res.send(
      customersPage(frameFor(res, 'customers'), { email, customers, limit: PAGE_SIZE, onFirstPage: onFirstPage(req) }),
    );
  });

  router.get('/customers/:customer_id', async (req: Request<{ customer_id: string }>, res) => {
    const params = { customer_id: req.params.customer_id };
    const detail = await call<CustomerDetail>(req, res, 'getCustomer', { params });
    const [invoices, emails] = await Promise.all([
      call<Invoice[]>(req, res, 'listInvoices', { query: { customer_id: detail.customer.id, limit: PAGE_SIZE } }),
      call<CustomerEmail[]>(req, res, 'listCustomerEmails', { params, query: { limit: PAGE_SIZE } }),
    ]);
    res.send(customerPage(frameFor(res, 'customers'), { detail, invoices, emails }));
  });

  router.get('/subscriptions', async (req, res) => {
    const status = queryText(req, 'status');
    const planId = queryText(req, 'plan_id');
    const [subscriptions, plans] = await Promise.all([
      call<Subscription[]>(req, res, 'listSubscriptions', { query: { status, plan_id: planId, ...page(req) } }),
      call<Plan[]>(req, res, 'listPlans', { query: { limit: 100 } }),
    ]);
    res.send(
      subscriptionsPage(frameFor(res, 'subscriptions'), {
        status,
        planId,
        plans,
        subscriptions,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
      }),
    );
  });

  router.get('/invoices', async (req, res) => {
    const status = queryText(req, 'status');
    const customerId = queryText(req, 'customer_id');
    const invoices = await call<Invoice[]>(req, res, 'listInvoices', {
      query: { status, customer_id: customerId, ...page(req) },
    });
    res.send(
      invoicesPage(frameFor(res, 'invoices'), {
        status,
        customerId,
        invoices,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
      }),
    );
  });

  router.get('/invoices/:invoice_id', async (req: Request<{ invoice_id: string }>, res) => {
    const invoice = await call<Invoice>(req, res, 'getInvoice', { params: { invoice_id: req.params.invoice_id } });
    const creditNotes = await call<CreditNote[]>(req, res, 'listCreditNotes', {
      query: { invoice_id: invoice.id, limit: 100 },
    });
    res.send(
      invoicePage(frameFor(res, 'invoices'), { invoice, creditNotes, formId: randomUUID(), notice: noticeOf(req) }),
    );
  });

  /** POST /invoices/{id}/credit-notes with the form's own Idempotency-Key: pressed twice, one note. */
  router.post('/invoices/:invoice_id/credit-notes', async (req: Request<{ invoice_id: string }>, res) => {
    const form = formOf(req);
    const formId = textOf(form.idempotency_key);
    if (formId && /^[\x20-\x7e]{1,255}$/.test(formId)) req.idempotencyKey = formId;
    const note = await call<CreditNote>(req, res, 'createCreditNote', {
      params: { invoice_id: req.params.invoice_id },
      body: {
        amount: numberOf(form.amount),
        reason: textOf(form.reason),
        refund_to: textOf(form.refund_to),
        memo: textOf(form.memo),
      },
    });
    res.redirect(303, `/dashboard/invoices/${encodeURIComponent(note.invoice_id)}?done=credit_note`);
  });

  router.get('/plans', async (req, res) => {
    const plans = await call<Plan[]>(req, res, 'listPlans', { query: page(req) });
    res.send(
      plansPage(frameFor(res, 'plans'), {
        plans,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
        notice: noticeOf(req),
      }),
    );
  });

  router.post('/plans', async (req, res) => {
    const form = formOf(req);
    await call<Plan>(req, res, 'createPlan', {
      body: {
        name: form.name,
        amount: numberOf(form.amount),
        currency: textOf(form.currency),
        interval: textOf(form.interval),
        interval_count: numberOf(form.interval_count),
        trial_period_days: numberOf(form.trial_period_days),
        description: textOf(form.description),
      },
    });
    res.redirect(303, '/dashboard/plans?done=plan_created');
  });

  router.get('/coupons', async (req, res) => {
    const coupons = await call<Coupon[]>(req, res, 'listCoupons', { query: page(req) });
    res.send(
      couponsPage(frameFor(res, 'coupons'), {
        coupons,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
        notice: noticeOf(req),
      }),
    );
  });

  router.post('/coupons', async (req, res) => {
    const form = formOf(req);
    await call<Coupon>(req, res, 'createCoupon', {
      body: {
        code: form.code,
        name: textOf(form.name),
        percent_off: numberOf(form.percent_off),
        amount_off: numberOf(form.amount_off),
        currency: textOf(form.currency),
        duration: textOf(form.duration),
        duration_in_periods: numberOf(form.duration_in_periods),
        max_redemptions: numberOf(form.max_redemptions),
      },
    });
    res.redirect(303, '/dashboard/coupons?done=coupon_created');
  });

  router.get('/tax-rates', async (req, res) => {
    const taxRates = await call<TaxRate[]>(req, res, 'listTaxRates', { query: page(req) });
    res.send(
      taxRatesPage(frameFor(res, 'taxRates'), {
        taxRates,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
        notice: noticeOf(req),
      }),
    );
  });

  router.post('/tax-rates', async (req, res) => {
    const form = formOf(req);
    await call<TaxRate>(req, res, 'createTaxRate', {
      body: {
        display_name: form.display_name,
        percentage: numberOf(form.percentage),
        inclusive: checkedOf(form.inclusive),
        country: textOf(form.country),
        jurisdiction: textOf(form.jurisdiction),
      },
    });
    res.redirect(303, '/dashboard/tax-rates?done=tax_rate_created');
  });

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

  router.use((_req, _res, next) => next(new HttpError(404, 'There is no such page in the dashboard')));

  // Every failure as a page: the API's status and detail by the API's one table (errorResponseOf).
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const { status, body, headers } = errorResponseOf(err, req, logger);
    const lines =
      typeof body.detail === 'string'
        ? [body.detail]
        : body.detail.map((v) => `${v.loc.slice(1).join('.') || v.loc.join('.')}: ${v.msg}`);
    const state = res.locals.dashboard as SignedIn | undefined;
    const frame = state?.frame ? { ...state.frame, section: sectionOf(req.path) } : undefined;
    const back = req.method === 'POST' || status === 404 ? sectionPath(sectionOf(req.path)) : undefined;
    res
      .status(status)
      .set(headers ?? {})
      .send(messagePage(frame, TITLES[status] ?? 'Something went wrong', lines, state ? back : '/dashboard/sign-in'));
  });
  return router;
}
