import { Router } from 'express';
import { z } from 'zod';
import { CARD_BEHAVIORS } from '../domain/ledger';
import { parseRequest } from '../http/parse-request';
import { readLedger } from '../usecases/sandbox-controls/read-ledger.usecase';
import { setCardBehavior } from '../usecases/sandbox-controls/set-card-behavior.usecase';
import type { SandboxDeps } from '../sandbox-deps';

const behaviorBody = z.object({
  behavior: z.enum(CARD_BEHAVIORS, { error: `behavior must be one of ${CARD_BEHAVIORS.join(', ')}` }),
});

const ledgerQuery = z.object({ email: z.string().optional(), reference: z.string().optional() });

/** Mounted at /sandbox: controls a real provider does not have. Plain JSON, no Paystack envelope. */
export function sandboxControlRoutes(deps: SandboxDeps): Router {
  const router = Router();
  router.post('/authorizations/:code/behavior', async (req, res) => {
    const { behavior } = parseRequest(behaviorBody, req.body);
    res.json(await setCardBehavior(deps, req.params.code, behavior));
  });
  router.get('/ledger', async (req, res) => {
    res.json(await readLedger(deps, parseRequest(ledgerQuery, req.query)));
  });
  return router;
}
