import { Router } from 'express';
import { z } from 'zod';
import { sendData } from '../http/envelope';
import { parseRequest } from '../http/parse-request';
import { chargeAuthorization } from '../usecases/transactions/charge-authorization.usecase';
import { initializeTransaction } from '../usecases/transactions/initialize-transaction.usecase';
import type { SandboxDeps } from '../sandbox-deps';
import { verifyTransaction } from '../usecases/transactions/verify-transaction.usecase';
import { amountField, currencyField, emailField, metadataField, referenceField, webUrlField } from './request-fields';

const initializeBody = z.object({
  email: emailField,
  amount: amountField,
  currency: currencyField,
  reference: referenceField.optional(),
  callback_url: webUrlField.optional(),
  metadata: metadataField,
});

const chargeAuthorizationBody = z.object({
  authorization_code: z.string({ error: 'Authorization code is required' }).min(1),
  email: emailField,
  amount: amountField,
  currency: currencyField,
  reference: referenceField.optional(),
  metadata: metadataField,
});

/** Mounted at /transaction. */
export function transactionRoutes(deps: SandboxDeps): Router {
  const router = Router();

  router.post('/initialize', async (req, res) => {
    const body = parseRequest(initializeBody, req.body);
    const started = await initializeTransaction(deps, {
      email: body.email,
      amount: body.amount,
      currency: body.currency,
      reference: body.reference,
      callbackUrl: body.callback_url,
      metadata: body.metadata,
    });
    sendData(res, 'Authorization URL created', {
      authorization_url: started.authorizationUrl,
      access_code: started.accessCode,
      reference: started.reference,
    });
  });

  router.get('/verify/:reference', async (req, res) => {
    sendData(res, 'Verification successful', await verifyTransaction(deps, req.params.reference));
  });

  router.post('/charge_authorization', async (req, res) => {
    const body = parseRequest(chargeAuthorizationBody, req.body);
    const charged = await chargeAuthorization(deps, {
      authorizationCode: body.authorization_code,
      email: body.email,
      amount: body.amount,
      currency: body.currency,
      reference: body.reference,
      metadata: body.metadata,
    });
    // Paystack: a declined card is still a successful API call; the outcome is data.status.
    sendData(res, 'Charge attempted', charged);
  });

  return router;
}
