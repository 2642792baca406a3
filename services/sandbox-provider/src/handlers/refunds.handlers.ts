import { Router } from 'express';
import { z } from 'zod';
import { sendData } from '../http/envelope';
import { parseRequest } from '../http/parse-request';
import { refundResource } from '../resources/paystack-resources';
import { listTransactionRefunds } from '../usecases/refunds/list-transaction-refunds.usecase';
import { refundTransaction } from '../usecases/refunds/refund-transaction.usecase';
import type { SandboxDeps } from '../sandbox-deps';
import { amountField } from './request-fields';

const refundBody = z.object({
  transaction: z.string({ error: 'Transaction reference is required' }).min(1),
  amount: amountField.optional(),
  merchant_note: z.string().max(500).optional(),
});

/** Paystack filters the list by `transaction`; older integrations send `reference`. */
const listQuery = z.object({ transaction: z.string().min(1).optional(), reference: z.string().min(1).optional() });

/** Mounted at /refund. */
export function refundRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.post('/', async (req, res) => {
    const body = parseRequest(refundBody, req.body);
    const { refund, transaction } = await refundTransaction(deps, {
      reference: body.transaction,
      amount: body.amount,
      merchantNote: body.merchant_note,
    });
    sendData(res, 'Refund has been queued for processing', refundResource(refund, transaction));
  });
  router.get('/', async (req, res) => {
    const query = parseRequest(listQuery, req.query);
    const reference = query.transaction ?? query.reference;
    // The sandbox lists refunds per transaction only: an unfiltered list is the ledger's job.
    const listed = reference ? await listTransactionRefunds(deps, reference) : [];
    sendData(
      res,
      'Refunds retrieved',
      listed.map(({ refund, transaction }) => refundResource(refund, transaction)),
    );
  });
  return router;
}
