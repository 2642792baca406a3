import { Router } from 'express';
import { z } from 'zod';
import { sendData } from '../http/envelope';
import { parseRequest } from '../http/parse-request';
import { refundResource } from '../usecases/paystack-resources';
import { refundTransaction } from '../usecases/refund-transaction.usecase';
import type { SandboxDeps } from '../usecases/sandbox-deps';
import { amountField } from './request-fields';

const refundBody = z.object({
  transaction: z.string({ error: 'Transaction reference is required' }).min(1),
  amount: amountField.optional(),
});

/** Mounted at /refund. */
export function refundRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.post('/', async (req, res) => {
    const body = parseRequest(refundBody, req.body);
    const { refund, transaction } = await refundTransaction(deps, { reference: body.transaction, amount: body.amount });
    sendData(res, 'Refund has been queued for processing', refundResource(refund, transaction));
  });
  return router;
}
