import type { Transaction } from 'sequelize';
import type { ChargeAuthorizationInput } from '@billing/payments';
import type { Context } from '@billing/platform';
import type { InvoiceModel } from '../../db/models';

/**
 * The words of invoice payment every step shares: a charge's reference and claim, what it came
 * to, and an outcome's consequences. Kept apart from the steps so each step imports the others'
 * vocabulary, never their modules in a circle.
 */

/** Paystack allows only [A-Za-z0-9.=-] in a reference: the invoice id without dashes. */
export const invoiceChargeReference = (invoiceId: string, attempt: number) =>
  `inv-${invoiceId.replace(/-/g, '')}-${attempt}`;

/** The attempt number of an invoice charge's reference (inv-<id>-<n>). */
export const attemptOf = (reference: string) => Number(reference.slice(reference.lastIndexOf('-') + 1));

/** What an invoice charge came to, for its caller. */
export interface ChargeResult {
  paid: boolean;
  invoice: InvoiceModel;
  /** Why the charge did not succeed (the provider's words), when it did not. */
  failure?: string;
  /** The outcome is not known yet (provider unreachable, or another charge in flight). */
  pending?: boolean;
}

/** A charge whose PENDING ledger row is committed: the provider may now be asked. */
export interface ChargeClaim {
  invoice: InvoiceModel;
  reference: string;
  /** 1 for the first charge of the invoice, then one more per retry. */
  attempt: number;
  /** Business time of the attempt. */
  at: Date;
  input: ChargeAuthorizationInput;
}

/** What claiming one invoice's charge came to. */
export type ClaimedCharge = { claim: ChargeClaim } | { done: ChargeResult };

/** An OPEN invoice to mark paid: by a charge's success, or with nothing to charge. */
export interface InvoicePayment {
  invoice: InvoiceModel;
  /** The attempt that paid it (attempt_count becomes at least this). */
  attempt: number;
  /** The charge's reference; null when nothing was charged (a free plan, the balance paid it). */
  reference: string | null;
  /** Business time of the payment. */
  at: Date;
  /** The customer's e-mail when the caller has it (a claim's); read otherwise. */
  email?: string;
  /** The charge's span: its events continue it, though recorded with a batch. */
  trace?: Context;
}

/** What the transaction that records an invoice charge's outcome passes to its consequences. */
export interface ChargeOutcome {
  paid: boolean;
  invoice: InvoiceModel;
  failure?: string;
  /** The business time of the outcome. */
  at: Date;
}

/** Consequences of an outcome other than the standard ones (applyChargeOutcome). */
export type OutcomeConsequences = (outcome: ChargeOutcome, transaction: Transaction) => Promise<void>;
