import { newAuthorizationCode, newCustomerCode } from '../../domain/codes';
import { unknownPayment } from '../../domain/hosted-payment';
import { CHARGE_OUTCOMES, PAGE_OUTCOMES, SANDBOX_CARD, sandboxCardExpiry, type PageOutcome } from '../../domain/ledger';
import type { TransactionModel } from '../../db/models';
import type { SandboxDeps } from '../../sandbox-deps';

/**
 * The payer's choice on the hosted page. A success saves a reusable card (which then charges
 * successfully until told otherwise) for the email's customer. Only a pending payment moves, under
 * a row lock, so a double submit or a second tab cannot pay twice; `justPaid` is true only for
 * the request that made the payment succeed.
 */
export async function payOnHostedPage(
  deps: SandboxDeps,
  accessCode: string,
  choice: PageOutcome,
): Promise<{ transaction: TransactionModel; justPaid: boolean }> {
  return deps.sequelize.transaction(async (dbTransaction) => {
    const transaction = await deps.transactions.findByAccessCode(accessCode, {
      transaction: dbTransaction,
      forUpdate: true,
    });
    if (!transaction) throw unknownPayment();
    if (transaction.status !== 'pending') return { transaction, justPaid: false };

    const outcome = CHARGE_OUTCOMES[PAGE_OUTCOMES[choice]];
    if (outcome.status === 'failed') {
      await deps.transactions.markFailed(transaction, outcome.gatewayResponse, dbTransaction);
      return { transaction, justPaid: false };
    }
    const now = deps.clock.now();
    const customer = await deps.customers.findOrCreate(
      { customerCode: newCustomerCode(), email: transaction.email, firstName: null, lastName: null, createdAt: now },
      dbTransaction,
    );
    const authorization = await deps.authorizations.create(
      {
        authorizationCode: newAuthorizationCode(),
        email: transaction.email,
        customerCode: customer.customerCode,
        last4: SANDBOX_CARD.last4,
        brand: SANDBOX_CARD.brand,
        ...sandboxCardExpiry(now),
        behavior: 'succeed',
        createdAt: now,
      },
      dbTransaction,
    );
    await deps.transactions.markPaid(
      transaction,
      { gatewayResponse: outcome.gatewayResponse, authorizationCode: authorization.authorizationCode, paidAt: now },
      dbTransaction,
    );
    return { transaction, justPaid: true };
  });
}
