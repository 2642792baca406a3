import type { Sequelize } from 'sequelize-typescript';
import type { Clock, Logger, ProjectClocks, PromiseClient } from '@billing/platform';
import type { PaymentProvider } from '@billing/payments';
import type { billingV1 } from '@billing/proto';
import type { CheckoutPaymentRepository } from './db/repositories/checkout-payment.repository';
import type { CheckoutSessionRepository } from './db/repositories/checkout-session.repository';
import type { CouponRepository } from './db/repositories/coupon.repository';
import type { PlanRepository } from './db/repositories/plan.repository';
import type { PlanChangePublisher } from './events/plan-change.publisher';

/** What catalog's use cases depend on; built once in server.ts. */
export interface CatalogDeps {
  sequelize: Sequelize;
  plans: PlanRepository;
  /** Every plan change is announced to the gateways' plan caches before it is answered. */
  planChanges: PlanChangePublisher;
  checkoutSessions: CheckoutSessionRepository;
  checkoutPayments: CheckoutPaymentRepository;
  coupons: CouponRepository;
  /** Real time; `clocks.now(scope)` for anything that belongs to a project and mode. */
  clock: Clock;
  /** Per-project time: real in live mode, the project's test clock in test mode. */
  clocks: ProjectClocks;
  billing: PromiseClient<billingV1.BillingServiceClient>;
  /** The sandbox in test mode, the live provider in live mode. */
  paymentsFor(livemode: boolean): PaymentProvider;
  /** Secrets an inbound provider webhook may be signed with, and the mode each stands for. */
  webhookSecrets: { secret: string; livemode: boolean }[];
  /** Base of checkout_url and of the provider's callback: the gateway's public address. */
  publicUrl: string;
  /** A payment still open at the provider this long after it started keeps its session from expiring. */
  paymentInFlightMs: number;
  logger: Logger;
}
