import { AuthorizationModel } from './authorization.model';
import { CustomerModel } from './customer.model';
import { RefundModel } from './refund.model';
import { TransactionModel } from './transaction.model';

export { AuthorizationModel, CustomerModel, RefundModel, TransactionModel };
export const sandboxModels = [CustomerModel, AuthorizationModel, TransactionModel, RefundModel];
