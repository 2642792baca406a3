import { AuthorizationModel, type AuthorizationRow } from './authorization.model';
import { CustomerModel, type CustomerRow } from './customer.model';
import { RefundModel } from './refund.model';
import { TransactionModel, type TransactionRow } from './transaction.model';

export { AuthorizationModel, CustomerModel, RefundModel, TransactionModel };
export type { AuthorizationRow, CustomerRow, TransactionRow };
export const sandboxModels = [CustomerModel, AuthorizationModel, TransactionModel, RefundModel];
