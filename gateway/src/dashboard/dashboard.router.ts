import { dirname, join, resolve } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CUSTOMER_PAGE_HEADERS, isGrpcServiceError, readRemoteError, type Logger } from '@billing/platform';
import type { IdentityClient } from '../clients/identity.client';
import { HttpError } from '../http/http-error';
import { verifyToken, type AuthenticatedMerchant } from '../middleware/auth';
import { errorResponseOf } from '../middleware/errors';
import type { RateLimits } from '../middleware/rate-limit';
import type { AccessToken, Project } from './api-answers';
import { apiKeyPrincipalOf, type DashboardApi, type DashboardCaller } from './dashboard-api';
import type { DashboardSessions } from './dashboard-sessions';
import { formOf, textOf } from './form-fields';
import { pageKit, sectionOf, signedIn, type SignedIn } from './page-kit';
import { mountBusinessPages } from './pages/business.pages';
import { mountCatalogPages } from './pages/catalog.pages';
import { mountDeveloperPages } from './pages/developer.pages';
import { mountSettingsPages } from './pages/settings.pages';
import { SECTIONS, sectionPath, type Frame, type Section } from './views/layout';
import { messagePage } from './views/message.view';
import { signInPage } from './views/sign-in.view';

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

/** The files under /dashboard/assets: ours from gateway/public/dashboard, Chart.js's UMD build from node_modules. */
const PUBLIC_DIR = resolve(__dirname, '../../public/dashboard');
const ASSET_FILES: Record<string, string> = {
  'dashboard.css': join(PUBLIC_DIR, 'dashboard.css'),
  'dashboard.js': join(PUBLIC_DIR, 'dashboard.js'),
  'chart.umd.min.js': join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'),
};

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

  const kit = pageKit(api, sessions);

  router.post('/sign-out', async (_req, res) => {
    await sessions.end(res, signedIn(res).session);
    res.redirect(303, '/dashboard/sign-in');
  });

  /** The project and mode switches: the project must be the merchant's (GET /projects/{id} as them). */
  router.post('/switch', async (req, res) => {
    const form = formOf(req);
    const mode = textOf(form.mode);
    if (mode !== 'test' && mode !== 'live') throw new HttpError(400, 'Choose test or live mode');
    const project = await kit.call<Project>(req, res, 'getProject', {
      params: { project_id: textOf(form.project_id) },
    });
    await sessions.choose(signedIn(res).session, project.id, mode === 'live');
    res.redirect(303, returnPath(form.return_to));
  });

  mountBusinessPages(router, kit);
  mountCatalogPages(router, kit);
  mountDeveloperPages(router, kit);
  mountSettingsPages(router, kit);

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
