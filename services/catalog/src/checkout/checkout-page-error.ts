import type { CheckoutSessionModel } from '../db/models/checkout-session.model';

/** A hosted-page action on a session that is not PENDING any more, or a page-level input error. */
export class CheckoutPageError extends Error {
  constructor(
    message: string,
    readonly session: CheckoutSessionModel | null,
  ) {
    super(message);
  }
}
