import { CardUpdateModel } from './card-update.model';
import { CreditNoteModel } from './credit-note.model';
import { CustomerModel } from './customer.model';
import { CustomerBalanceTransactionModel } from './customer-balance-transaction.model';
import { HostedInvoicePaymentModel } from './hosted-invoice-payment.model';
import { InvoiceLineModel } from './invoice-line.model';
import { InvoiceModel } from './invoice.model';
import { PaymentAuthorizationModel } from './payment-authorization.model';
import { PaymentModel } from './payment.model';
import { RefundModel } from './refund.model';
import { SubscriptionPlanModel } from './subscription-plan.model';
import { SubscriptionModel } from './subscription.model';
import { TaxRateModel } from './tax-rate.model';
import { UsageRecordModel } from './usage-record.model';

export {
  CardUpdateModel,
  CreditNoteModel,
  CustomerBalanceTransactionModel,
  CustomerModel,
  HostedInvoicePaymentModel,
  InvoiceLineModel,
  InvoiceModel,
  PaymentAuthorizationModel,
  PaymentModel,
  RefundModel,
  SubscriptionModel,
  SubscriptionPlanModel,
  TaxRateModel,
  UsageRecordModel,
};

/** Every model of the billing database, registered once in server.ts. */
export const billingModels = [
  CustomerModel,
  PaymentAuthorizationModel,
  SubscriptionModel,
  InvoiceModel,
  InvoiceLineModel,
  PaymentModel,
  HostedInvoicePaymentModel,
  CardUpdateModel,
  RefundModel,
  UsageRecordModel,
  CustomerBalanceTransactionModel,
  SubscriptionPlanModel,
  TaxRateModel,
  CreditNoteModel,
];
