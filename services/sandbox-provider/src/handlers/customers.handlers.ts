import { Router } from 'express';
import { z } from 'zod';
import { sendData } from '../http/envelope';
import { parseRequest } from '../http/parse-request';
import { createCustomer } from '../usecases/customers/create-customer.usecase';
import { customerResource } from '../resources/paystack-resources';
import type { SandboxDeps } from '../sandbox-deps';
import { emailField } from './request-fields';

const createCustomerBody = z.object({
  email: emailField,
  first_name: z.string().max(100).optional(),
  last_name: z.string().max(100).optional(),
});

/** Mounted at /customer. */
export function customerRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.post('/', async (req, res) => {
    const body = parseRequest(createCustomerBody, req.body);
    const customer = await createCustomer(deps, {
      email: body.email,
      firstName: body.first_name,
      lastName: body.last_name,
    });
    sendData(res, 'Customer created', customerResource(customer));
  });
  return router;
}
