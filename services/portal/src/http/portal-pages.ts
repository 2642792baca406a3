import { randomBytes } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import {
  CUSTOMER_PAGE_HEADERS,
  DomainError,
  isGrpcServiceError,
  readCookie,
  readRemoteError,
  type Logger,
} from '@billing/platform';
import { checkCsrf, liveSession } from '../browser-sessions/browser-session';
import { ownedSubscription } from '../browser-sessions/owned-subscription';
import { ADDRESS_FIELDS, billingDetailsOf } from '../domain/billing-details';
import type { PortalSessionModel } from '../db/models/portal-session.model';
import type { PortalDeps } from '../portal-deps';
import { cancelSubscription } from '../usecases/portal/cancel-subscription.usecase';
import { changePlan } from '../usecases/portal/change-plan.usecase';
import { finishCardUpdate } from '../usecases/portal/finish-card-update.usecase';
import { returnDestination } from '../usecases/portal/return-destination.usecase';
import { reviewCancellation } from '../usecases/portal/review-cancellation.usecase';
import { reviewPlanChange } from '../usecases/portal/review-plan-change.usecase';
import { showPortal } from '../usecases/portal/show-portal.usecase';
import { startCardUpdate } from '../usecases/portal/start-card-update.usecase';
import { updateBillingDetails } from '../usecases/portal/update-billing-details.usecase';
import { enterPortal } from '../usecases/sessions/enter-portal.usecase';
import { openSessionLink } from '../usecases/sessions/open-session-link.usecase';
import {
  billingDetailsReviewPage,
  cancellationReviewPage,
  cardReviewPage,
  homePage,
  messagePage,
  planChangeReviewPage,
} from './portal-views';

export const PORTAL_COOKIE = 'portal_session';

const cookieOf = (req: Request): string | undefined => readCookie(req.headers.cookie, PORTAL_COOKIE);

const EXPIRED = () =>
  messagePage(
    'This link has expired',
    'This link to your account has expired or is not valid. Ask for a new one where you got this one.',
  );

/** One id per confirmation page: "Confirm" pressed twice makes one change (billing's Idempotency-Key). */
const confirmationId = () => randomBytes(18).toString('base64url');

const formOf = (req: Request): Record<string, string> => {
  const body = (req.body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
};

/**
 * The portal pages (docs/api-behaviour.md §24), behind the gateway's /portal/* proxy: the session
 * URL and the entry link set the HttpOnly cookie of a browser session; every page after reads it,
 * every form carries the session's CSRF token, and every id a URL or form names is checked to be
 * the session's customer's. No script: each action is a form, its confirmation a page.
 */
export function createPortalPagesApp(deps: PortalDeps, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  const secureCookie = deps.settings.publicUrl.startsWith('https:');
  app.use((_req, res, next) => {
    res.set(CUSTOMER_PAGE_HEADERS);
    next();
  });
  app.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const setCookie = (res: Response, token: string) =>
    res.cookie(PORTAL_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookie,
      path: '/portal',
      // A browser session; the server ends it after PORTAL_IDLE_TTL_SECONDS without a request.
    });

  app.get('/portal/s/:token', async (req: Request<{ token: string }>, res) => {
    // A HEAD (a mail or chat client previewing the link) must not use up the one opening.
    if (req.method === 'HEAD') return res.status(200).end();
    setCookie(res, await openSessionLink(deps, req.params.token));
    res.redirect(303, '/portal');
  });

  app.get('/portal/enter/:token', async (req: Request<{ token: string }>, res) => {
    if (req.method === 'HEAD') return res.status(200).end();
    setCookie(res, await enterPortal(deps, req.params.token));
    res.redirect(303, '/portal');
  });

  /** The live session of a page's request (401 otherwise). */
  const session = (req: Request) => liveSession(deps, cookieOf(req));
  /** The live session of a form, its CSRF token checked (401, then 403). */
  const formSession = async (req: Request): Promise<PortalSessionModel> => {
    const current = await session(req);
    checkCsrf(current, formOf(req).csrf_token);
    return current;
  };

  app.get('/portal', async (req, res) => {
    const current = await session(req);
    const view = await showPortal(deps, current);
    const notice = typeof req.query.done === 'string' ? req.query.done : null;
    res.send(homePage(view, notice, (await returnDestination(deps, current)) !== null));
  });

  app.post('/portal/subscriptions/:id/cancel', async (req: Request<{ id: string }>, res) => {
    const current = await formSession(req);
    const review = await reviewCancellation(deps, current, req.params.id);
    res.send(cancellationReviewPage(review, current.csrfToken!, confirmationId()));
  });

  app.post('/portal/subscriptions/:id/cancel/confirm', async (req: Request<{ id: string }>, res) => {
    const current = await formSession(req);
    const { atPeriodEnd } = await cancelSubscription(deps, current, req.params.id, formOf(req).confirmation_id);
    res.redirect(303, `/portal?done=${atPeriodEnd ? 'cancel_scheduled' : 'cancelled'}`);
  });

  app.post('/portal/subscriptions/:id/change-plan', async (req: Request<{ id: string }>, res) => {
    const current = await formSession(req);
    const review = await reviewPlanChange(deps, current, req.params.id, formOf(req).plan_id);
    res.send(planChangeReviewPage(review, current.csrfToken!, confirmationId()));
  });

  app.post('/portal/subscriptions/:id/change-plan/confirm', async (req: Request<{ id: string }>, res) => {
    const current = await formSession(req);
    const form = formOf(req);
    await changePlan(deps, current, req.params.id, form.plan_id, form.confirmation_id);
    res.redirect(303, '/portal?done=plan_changed');
  });

  app.post('/portal/billing-details', async (req, res) => {
    const current = await formSession(req);
    const form = formOf(req);
    const fields = Object.fromEntries(['name', 'tax_id', ...ADDRESS_FIELDS].map((name) => [name, form[name] ?? '']));
    res.send(billingDetailsReviewPage(billingDetailsOf(fields), fields, current.csrfToken!));
  });

  app.post('/portal/billing-details/confirm', async (req, res) => {
    const current = await formSession(req);
    await updateBillingDetails(deps, current, billingDetailsOf(formOf(req)));
    res.redirect(303, '/portal?done=details_updated');
  });

  app.post('/portal/card/review', async (req, res) => {
    const current = await formSession(req);
    const subscription = await ownedSubscription(deps, current, formOf(req).subscription_id ?? '');
    res.send(cardReviewPage(subscription, current.csrfToken!));
  });

  app.post('/portal/card', async (req, res) => {
    const current = await formSession(req);
    res.redirect(303, await startCardUpdate(deps, current, formOf(req).subscription_id));
  });

  app.get('/portal/card/callback', async (req, res) => {
    const current = await session(req);
    const reference = typeof req.query.reference === 'string' ? req.query.reference : '';
    const outcome = await finishCardUpdate(deps, current, reference);
    const notice = outcome === 'UPDATED' ? 'card_updated' : outcome === 'PENDING' ? 'card_pending' : 'card_not_updated';
    res.redirect(303, `/portal?done=${notice}`);
  });

  app.post('/portal/return', async (req, res) => {
    const current = await formSession(req);
    const destination = await returnDestination(deps, current);
    if (!destination) throw new DomainError('not_found', 'Nowhere to return to');
    res.redirect(303, destination);
  });

  app.use((_req, res) => {
    res.status(404).send(messagePage('Page not found', 'There is no such page in your account.', true));
  });

  // Express 5 passes rejected promises here; the customer sees a plain page, never a stack.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, page } = pageOfError(err);
    if (status === 503) res.set('retry-after', '5');
    if (status === 500) logger.error({ err }, 'portal page failed');
    res.status(status).send(page);
  });
  return app;
}

/** The one table from a failure to the page the customer sees (docs/api-behaviour.md §24). */
function pageOfError(err: unknown): { status: number; page: string } {
  const refused = (status: number, title: string, text: string) => ({ status, page: messagePage(title, text, true) });
  if (err instanceof DomainError) {
    switch (err.kind) {
      case 'unauthenticated':
        return { status: 401, page: EXPIRED() };
      case 'permission_denied':
        return refused(403, 'This form has expired', err.message);
      case 'not_found':
        return refused(404, 'Not found', 'There is no such item in your account.');
      case 'failed_precondition':
      case 'invalid_argument':
        return refused(400, 'Not possible', err.message);
      default:
        break;
    }
  }
  const type = (err as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large' || type === 'parameters.too.many') {
    return refused(413, 'Too much', 'The form sent too much.');
  }
  if (isGrpcServiceError(err)) {
    const remote = readRemoteError(err);
    switch (remote.code) {
      case GrpcStatus.NOT_FOUND:
      case GrpcStatus.PERMISSION_DENIED:
        return refused(404, 'Not found', 'There is no such item in your account.');
      case GrpcStatus.INVALID_ARGUMENT:
      case GrpcStatus.OUT_OF_RANGE: {
        const detail =
          remote.violations.map((v) => `${v.loc.slice(1).join('.')}: ${v.msg}`).join('; ') || remote.detail;
        return refused(422, 'Please check the details', detail);
      }
      case GrpcStatus.FAILED_PRECONDITION:
        return remote.reason === 'payment_required'
          ? refused(402, 'Your card was declined', 'Nothing was changed. Update your card and try again.')
          : refused(400, 'Not possible', remote.detail);
      case GrpcStatus.ABORTED:
        return refused(409, 'Try again', remote.detail);
      case GrpcStatus.UNAVAILABLE:
      case GrpcStatus.DEADLINE_EXCEEDED:
        return refused(503, 'Try again in a moment', 'This page is temporarily unavailable. Please try again shortly.');
      default:
        break;
    }
  }
  return {
    status: 500,
    page: messagePage('Something went wrong', 'We could not do this. Please try again in a moment.', true),
  };
}
