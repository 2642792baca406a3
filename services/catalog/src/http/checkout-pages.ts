import express, { type Express, type Request, type Response } from 'express';
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  CUSTOMER_PAGE_HEADERS,
  DomainError,
  isDatabaseUnavailable,
  isGrpcServiceError,
  type Logger,
} from '@billing/platform';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CatalogDeps } from '../catalog-deps';
import { normalizeCouponCode } from '../domain/coupon-rules';
import { applyCheckoutPayment } from '../checkout/apply-checkout-payment';
import { CheckoutPageError } from '../checkout/checkout-page-error';
import { findOpenSession } from '../checkout/find-open-session';
import { applyPromotionCode } from '../usecases/checkout-sessions/apply-promotion-code.usecase';
import { cancelCheckout } from '../usecases/checkout-sessions/cancel-checkout.usecase';
import { startCheckoutPayment } from '../usecases/checkout-sessions/start-checkout-payment.usecase';
import { checkoutPage, checkoutStatusPage } from './checkout-views';

/** Where the customer goes after a session ends, with the merchant's URL when it set one. */
function endPage(res: Response, session: CheckoutSessionModel): void {
  if (session.status === 'COMPLETED') {
    if (session.successUrl) return res.redirect(303, session.successUrl);
    res.send(
      checkoutStatusPage('Payment complete', 'Thank you! Your subscription is active. You can close this page.'),
    );
    return;
  }
  if (session.status === 'CANCELLED') {
    if (session.cancelUrl) return res.redirect(303, session.cancelUrl);
    res.send(checkoutStatusPage('Checkout cancelled', 'No payment was taken. You can close this page.'));
    return;
  }
  const back = session.cancelUrl ? { href: session.cancelUrl, label: 'Return to the merchant' } : undefined;
  res
    .status(410)
    .send(
      checkoutStatusPage('This checkout has expired', 'No payment was taken. Ask the merchant for a new link.', back),
    );
}

/** What the payer typed into the form, shown again when the page comes back with a message. */
interface TypedForm {
  email?: string;
  name?: string;
  promotionCode?: string;
}

async function renderForm(
  deps: CatalogDeps,
  res: Response,
  session: CheckoutSessionModel,
  error?: string,
  status = 200,
  typed: TypedForm = {},
  notice?: string,
) {
  const plan = await deps.plans.ofSession(session.planId);
  res.status(status).send(
    checkoutPage({
      code: session.code,
      plan,
      quote: session.quote,
      sellerName: session.sellerName,
      coupon: session.coupon,
      promotionCodes: session.allowPromotionCodes,
      promotionCode: typed.promotionCode ?? session.coupon?.code ?? '',
      email: session.customerEmail ?? (typed.email || null),
      name: session.customerName ?? (typed.name || null),
      emailLocked: session.customerEmail !== null && !error?.includes('email'),
      error,
      notice,
    }),
  );
}

const typedForm = (body: Record<string, unknown> | undefined): TypedForm => {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { email: text(body?.email), name: text(body?.name), promotionCode: text(body?.promotion_code) };
};

const notFound = (res: Response) =>
  res
    .status(404)
    .send(checkoutStatusPage('Checkout not found', 'This payment link does not exist. Check the link you were given.'));

/**
 * Catalog's HTTP side, reached through the gateway's proxy: the hosted checkout pages (server
 * rendered, no JavaScript needed). The provider's webhook is answered before it
 * (providerWebhookListener).
 */
export function createCheckoutPagesApp(deps: CatalogDeps, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    // Pages carry a session capability in the URL: never cache them, never frame them.
    res.set(CUSTOMER_PAGE_HEADERS);
    next();
  });
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/checkout/:code', async (req: Request<{ code: string }>, res) => {
    const session = await findOpenSession(deps, req.params.code);
    if (!session) return notFound(res);
    if (session.status !== 'PENDING') return endPage(res, session);
    await renderForm(deps, res, session);
  });

  app.post('/checkout/:code/pay', form, async (req: Request<{ code: string }>, res) => {
    const typed = typedForm(req.body);
    try {
      // A promotion code typed but not applied yet: apply it and show the new price before
      // anything is charged, rather than charging a price the payer has not seen.
      const session = await deps.checkoutSessions.findByCode(req.params.code);
      const code = normalizeCouponCode(typed.promotionCode ?? '');
      if (session?.allowPromotionCodes && code && code !== session.coupon?.code) {
        return await promotionCodeApplied(res, req.params.code, typed);
      }
      const url = await startCheckoutPayment(deps, req.params.code, { email: typed.email, name: typed.name });
      res.redirect(303, url);
    } catch (err) {
      if (err instanceof CheckoutPageError && err.session) {
        if (err.session.status !== 'PENDING') return endPage(res, err.session);
        return renderForm(deps, res, err.session, err.message, 422, typed);
      }
      if (err instanceof DomainError && err.kind === 'not_found') return notFound(res);
      throw err;
    }
  });

  /** Applies (or, empty, removes) the promotion code and shows the page priced with it. */
  async function promotionCodeApplied(res: Response, code: string, typed: TypedForm): Promise<void> {
    const session = await applyPromotionCode(deps, code, typed.promotionCode ?? '');
    const notice = session.coupon
      ? `Promotion code ${session.coupon.code} applied. Check the new price, then press Pay.`
      : 'Promotion code removed.';
    await renderForm(
      deps,
      res,
      session,
      undefined,
      200,
      { ...typed, promotionCode: session.coupon?.code ?? '' },
      notice,
    );
  }

  app.post('/checkout/:code/promotion-code', form, async (req: Request<{ code: string }>, res) => {
    const typed = typedForm(req.body);
    try {
      await promotionCodeApplied(res, req.params.code, typed);
    } catch (err) {
      if (err instanceof CheckoutPageError && err.session) {
        const current = await deps.checkoutSessions.refresh(err.session);
        if (current.status !== 'PENDING') return endPage(res, current);
        return renderForm(deps, res, current, err.message, 400, typed);
      }
      if (err instanceof DomainError && err.kind === 'not_found') return notFound(res);
      throw err;
    }
  });

  app.get('/checkout/:code/callback', async (req: Request<{ code: string }>, res) => {
    const session = await deps.checkoutSessions.findByCode(req.params.code);
    if (!session) return notFound(res);
    const reference = typeof req.query.reference === 'string' ? req.query.reference : session.transactionReference;
    // Back from the provider without paying (its cancel link): show the form again.
    if (!reference) return session.status === 'PENDING' ? renderForm(deps, res, session) : endPage(res, session);
    try {
      // A reference this session did not start (forged, another session's) changes nothing; a
      // payment of a session that ended meanwhile is refunded, and the page says how it ended.
      const applied = await applyCheckoutPayment(deps, session, reference);
      if (!applied) return session.status === 'PENDING' ? renderForm(deps, res, session) : endPage(res, session);
      const payment = await deps.checkoutPayments.findOfSession(session.id, reference);
      if (applied.status !== 'COMPLETED' && payment?.state === 'REFUNDED') {
        res.send(
          checkoutStatusPage(
            `This checkout was ${applied.status.toLowerCase()}`,
            'Your payment arrived after the checkout had ended, so it was not used: it has been refunded in full.',
          ),
        );
        return;
      }
      endPage(res, applied);
    } catch (err) {
      if (err instanceof CheckoutPageError && err.session) {
        const current = await deps.checkoutSessions.refresh(err.session);
        if (current.status !== 'PENDING') return endPage(res, current);
        return renderForm(deps, res, current, err.message, 402);
      }
      throw err;
    }
  });

  app.post('/checkout/:code/cancel', async (req: Request<{ code: string }>, res) => {
    try {
      endPage(res, await cancelCheckout(deps, req.params.code));
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'not_found') return notFound(res);
      throw err;
    }
  });

  app.use((_req, res) => notFound(res));
  // Express 5 passes rejected promises here; the customer sees a plain apology, never a stack.
  // A database or service that is briefly away (a restart, a failover) is a 503 the payer may
  // retry at once, not a fault of ours (docs/api-behaviour.md §1).
  app.use((err: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
    const unavailable = isDatabaseUnavailable(err) || (isGrpcServiceError(err) && err.code === GrpcStatus.UNAVAILABLE);
    if (unavailable) logger.warn({ err }, 'checkout page: a backing service is unavailable');
    else logger.error({ err }, 'checkout page failed');
    if (unavailable) res.set('Retry-After', '1');
    res
      .status(unavailable ? 503 : 500)
      .send(
        checkoutStatusPage('Something went wrong', 'We could not process this step. Please try again in a moment.'),
      );
  });
  return app;
}
