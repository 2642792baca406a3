import type { IncomingMessage, RequestListener } from 'node:http';
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  DomainError,
  isDatabaseUnavailable,
  isGrpcServiceError,
  isPostTo,
  readRawBodyOrRefuse,
  sendJson,
  type Logger,
} from '@billing/platform';
import type { CatalogDeps } from '../catalog-deps';
import { receiveProviderWebhook } from '../usecases/provider-webhooks/receive-provider-webhook.usecase';

/** Where the gateway forwards the payment provider's webhook. */
const PROVIDER_WEBHOOK_PATH = '/payments/paystack/webhook';
const MAX_BODY_BYTES = 1024 * 1024;

export const isProviderWebhook = (req: IncomingMessage) => isPostTo(req, PROVIDER_WEBHOOK_PATH);

/**
 * The payment provider's webhook, answered before the pages app: one arrives for every
 * successful charge (renewals included), and it needs the raw body and nothing Express adds.
 * 401 for a bad signature, 422 for a body that is not JSON, 200 once handled.
 */
export function providerWebhookListener(deps: CatalogDeps, logger: Logger): RequestListener {
  const handle = async (req: IncomingMessage, res: Parameters<RequestListener>[1]) => {
    const rawBody = await readRawBodyOrRefuse(req, res, MAX_BODY_BYTES);
    if (!rawBody) return;
    const signature = req.headers['x-paystack-signature'];
    try {
      await receiveProviderWebhook(deps, rawBody, typeof signature === 'string' ? signature : undefined, logger);
      sendJson(res, 200, { received: true });
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'unauthenticated') {
        return sendJson(res, 401, { detail: err.message });
      }
      if (err instanceof DomainError && err.kind === 'invalid_argument') {
        return sendJson(res, 422, { detail: err.violations });
      }
      // The provider retries a non-2xx webhook; the customer never sees this answer.
      // Our database or billing briefly away (a restart, a failover): the provider's retry will do.
      if (isDatabaseUnavailable(err) || (isGrpcServiceError(err) && err.code === GrpcStatus.UNAVAILABLE)) {
        logger.warn({ err }, 'provider webhook: a backing service is unavailable');
        return sendJson(res, 503, { detail: 'The webhook could not be processed; retry later' });
      }
      logger.error({ err }, 'provider webhook failed');
      sendJson(res, 500, { detail: 'The webhook could not be processed; retry later' });
    }
  };
  return (req, res) => void handle(req, res);
}
