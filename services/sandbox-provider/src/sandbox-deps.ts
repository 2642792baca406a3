import type { Sequelize } from 'sequelize-typescript';
import type { Clock, Logger } from '@billing/platform';
import type { AuthorizationRepository } from './db/repositories/authorization.repository';
import type { CustomerRepository } from './db/repositories/customer.repository';
import type { RefundRepository } from './db/repositories/refund.repository';
import type { TransactionRepository } from './db/repositories/transaction.repository';
import type { WebhookSender } from './webhooks/webhook-sender';

/** What the sandbox's use cases depend on; built once in server.ts. */
export interface SandboxDeps {
  sequelize: Sequelize;
  customers: CustomerRepository;
  authorizations: AuthorizationRepository;
  transactions: TransactionRepository;
  refunds: RefundRepository;
  clock: Clock;
  webhooks: Pick<WebhookSender, 'send'>;
  logger: Logger;
  /** Base of the hosted payment page URLs handed out as `authorization_url`. */
  publicUrl: string;
}
