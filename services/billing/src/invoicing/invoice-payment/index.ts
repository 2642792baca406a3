/**
 * Invoice payment: the one place an invoice is opened for a period, charged, and its outcome
 * recorded with its events and subscription consequences (docs/api-behaviour.md §6, §8, §20).
 * Every path is a batch, and a single invoice is a batch of one through the same code, so the
 * scheduler's 500 renewals and one pay-now follow the same rules in a handful of statements.
 *
 * Files, by role:
 *  - open-period-invoices.ts   opening period invoices (drafts, usage lines, money, invoice.created)
 *  - claim-charges.ts          claiming charges: reference inv-<id>-<n>, PENDING row before the
 *                              provider call, off the schedule; sending a claimed charge
 *  - record-charge-outcomes.ts recording outcomes: successes (batch), failures with dunning
 *  - invoice-paid.ts           THE "invoice paid" rule and THE "renewed" rule
 *  - charge-consequences.ts    the standard consequences of an outcome for its subscription
 *  - plan-change-outcome.ts    a plan change invoice's consequences instead (§18)
 *  - charge-invoice.ts         one invoice charged now (pay-now, plan change, resume) and a
 *                              PENDING charge the provider does not know sent again
 *  - send-scheduled-charges.ts the scheduler's claimed charges sent, `concurrency` in flight
 * Use cases outside import only what this index exports; the database is reached only
 * through the repositories in BillingDeps.
 */
export { chargeInvoice, resendUnknownCharge } from './charge-invoice';
export { invoiceChargeReference, type ChargeClaim, type ChargeOutcome, type ChargeResult } from './charges';
export { claimInvoiceCharges, sendClaimedCharge } from './claim-charges';
export { openPeriodInvoice, openPeriodInvoices } from './open-period-invoices';
export { NEVER_CHARGED, recordChargeOutcome } from './record-charge-outcomes';
export { sendScheduledCharges } from './send-scheduled-charges';
