import { unaryService, type Logger } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { BillingDeps } from '../billing-deps';
import { analyticsEventHandlers } from './analytics-event.handlers';
import type { BillingHandlers } from './billing-messages';
import { cardUpdateHandlers } from './card-update.handlers';
import { checkoutHandlers } from './checkout.handlers';
import { creditNoteHandlers } from './credit-note.handlers';
import { customerHandlers } from './customer.handlers';
import { documentHandlers } from './document.handlers';
import { invoiceHandlers } from './invoice.handlers';
import { subscriptionHandlers } from './subscription.handlers';
import { taxRateHandlers } from './tax-rate.handlers';
import { testClockHandlers } from './test-clock.handlers';
import { usageHandlers } from './usage.handlers';

/**
 * Every RPC of billing.v1, one module per resource. A method no module implements answers
 * UNIMPLEMENTED (grpc-js does that for a missing handler).
 */
export function billingHandlers(deps: BillingDeps, logger: Logger): billingV1.BillingServiceServer {
  const handlers: Partial<BillingHandlers> = {
    ...analyticsEventHandlers(deps),
    ...cardUpdateHandlers(deps),
    ...checkoutHandlers(deps),
    ...creditNoteHandlers(deps),
    ...customerHandlers(deps),
    ...documentHandlers(deps),
    ...invoiceHandlers(deps),
    ...subscriptionHandlers(deps),
    ...taxRateHandlers(deps),
    ...testClockHandlers(deps),
    ...usageHandlers(deps),
  };
  return unaryService(handlers, logger);
}
