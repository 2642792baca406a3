import express, { Router, type Response } from 'express';
import { DomainError } from '@billing/platform';
import { isPageOutcome } from '../domain/ledger';
import { callbackUrlWithReference, cancelUrlFor } from '../domain/return-urls';
import type { TransactionModel } from '../db/models';
import { announceChargeSuccess } from '../usecases/transactions/announce-charge-success.usecase';
import { findHostedPayment } from '../usecases/transactions/find-hosted-payment.usecase';
import { payOnHostedPage } from '../usecases/transactions/pay-on-hosted-page.usecase';
import type { SandboxDeps } from '../sandbox-deps';
import { renderMessagePage, renderPaymentPage } from '../views/payment-page.view';

/** The page is a capability (its URL is all a payer needs): keep it out of caches, referrers and frames. */
function pageHeaders(res: Response): Response {
  return res
    .set('Cache-Control', 'no-store')
    .set('Referrer-Policy', 'no-referrer')
    .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    .type('html');
}

const FINISHED: Record<TransactionModel['status'], string> = {
  pending: '',
  success: 'This payment has been completed.',
  failed: 'This payment did not go through.',
  abandoned: 'This payment was abandoned.',
};

/** Mounted at /pay: what the payer's browser opens as `authorization_url`. No API key here. */
export function paymentPageRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb' }));

  router.get('/:accessCode', async (req, res) => {
    const transaction = await findHostedPayment(deps, req.params.accessCode);
    if (transaction.status !== 'pending') {
      const back = transaction.callbackUrl
        ? callbackUrlWithReference(transaction.callbackUrl, transaction.reference)
        : null;
      pageHeaders(res).send(renderMessagePage('Sandbox payment', FINISHED[transaction.status], back));
      return;
    }
    pageHeaders(res).send(
      renderPaymentPage({
        amount: transaction.amount,
        currency: transaction.currency,
        email: transaction.email,
        reference: transaction.reference,
        cancelUrl: cancelUrlFor(transaction),
      }),
    );
  });

  router.post('/:accessCode', async (req, res) => {
    const outcome: unknown = (req.body as Record<string, unknown> | undefined)?.outcome;
    if (!isPageOutcome(outcome))
      throw new DomainError('invalid_argument', 'Choose Success, Declined or Insufficient funds');
    const { transaction, justPaid } = await payOnHostedPage(deps, req.params.accessCode, outcome);
    if (transaction.callbackUrl) {
      res.redirect(303, callbackUrlWithReference(transaction.callbackUrl, transaction.reference));
    } else {
      pageHeaders(res).send(renderMessagePage('Sandbox payment', FINISHED[transaction.status]));
    }
    // After the redirect is on its way: the merchant hears of the payment from both, in any order.
    if (justPaid) await announceChargeSuccess(deps, transaction);
  });

  return router;
}
