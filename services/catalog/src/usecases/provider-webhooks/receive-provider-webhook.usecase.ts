import { DomainError, type Logger } from '@billing/platform';
import { verifyPaystackWebhook } from '@billing/payments';
import type { CatalogDeps } from '../../catalog-deps';
import { applyCheckoutPayment } from '../../checkout/apply-checkout-payment';
import { CheckoutPageError } from '../../checkout/checkout-page-error';

interface ChargeSuccess {
  event: string;
  data?: { reference?: string; metadata?: { checkout_session_code?: string } | string };
}

/** Which configured secret signed the body, if any. */
function signerOf(deps: CatalogDeps, rawBody: Buffer, signature: string | undefined) {
  if (!signature) return null;
  return deps.webhookSecrets.find(({ secret }) => verifyPaystackWebhook(rawBody, signature, secret)) ?? null;
}

/**
 * The provider's `charge.success` for a hosted checkout completes its session, exactly like the
 * callback, and a payment that cannot (the session ended) is refunded. A bad signature is refused (401) before anything is read; a webhook signed with the
 * sandbox secret can only touch test-mode sessions, the live secret only live ones.
 */
export async function receiveProviderWebhook(
  deps: CatalogDeps,
  rawBody: Buffer,
  signature: string | undefined,
  logger: Logger,
): Promise<void> {
  const signer = signerOf(deps, rawBody, signature);
  if (!signer) throw new DomainError('unauthenticated', 'Invalid webhook signature');
  let payload: ChargeSuccess;
  try {
    payload = JSON.parse(rawBody.toString('utf8')) as ChargeSuccess;
  } catch {
    throw DomainError.invalid([{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }]);
  }
  if (payload.event !== 'charge.success') return;
  const metadata =
    typeof payload.data?.metadata === 'string' ? safeParse(payload.data.metadata) : payload.data?.metadata;
  const code = metadata?.checkout_session_code;
  const reference = payload.data?.reference;
  // Renewal charges and other payments carry no checkout code: nothing for catalog to do.
  if (!code || !reference) return;
  const session = await deps.checkoutSessions.findByCode(code);
  if (!session || session.livemode !== signer.livemode) return;
  try {
    // Only a transaction this session started counts; a late or second one is refunded.
    if (!(await applyCheckoutPayment(deps, session, reference))) {
      logger.warn({ code }, 'provider webhook names a transaction this session did not start; ignored');
    }
  } catch (err) {
    // The session moved on (expired, cancelled) or the payment is not a success: the provider
    // must not retry forever; the hosted page shows the outcome to the customer.
    if (err instanceof CheckoutPageError) logger.warn({ code, reason: err.message }, 'provider webhook not applied');
    else throw err;
  }
}

function safeParse(text: string): { checkout_session_code?: string } | undefined {
  try {
    return JSON.parse(text) as { checkout_session_code?: string };
  } catch {
    return undefined;
  }
}
