import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  customerLocaleOf,
  isGrpcServiceError,
  toMinorUnits,
  type Currency,
  type PortalLinks,
  type PromiseClient,
  type ProjectScope,
} from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { ClaimedEmail } from '../db/repositories/customer-email.repository';
import type { EmailFacts } from '../domain/email-templates';

/** How long the portal link of a payment_failed email opens the portal (docs/api-behaviour.md §24). */
export const PORTAL_LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/** The facts of an email, with the address it goes to. */
export interface FactsToSend {
  to: string;
  facts: EmailFacts;
}

/** Billing says the customer or invoice is gone: the email can never be written. */
export class EmailFactsMissing extends Error {}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const date = (value: unknown): Date | null => (typeof value === 'string' ? new Date(value) : null);

/**
 * What an email needs that its event does not carry, read from billing over gRPC (only the
 * methods grpc-auth.ts lets notification call: GetCustomer, GetInvoice): the customer's address,
 * name and locale as they are now, the invoice's number and links; and the portal link a failed
 * payment's email carries, signed with PORTAL_LINKS_KEY.
 */
export class BillingEmailFacts {
  constructor(
    private readonly billing: PromiseClient<billingV1.BillingServiceClient>,
    private readonly portalLinks: PortalLinks | null,
    private readonly publicUrl: string,
  ) {}

  /** EmailFactsMissing when billing no longer has them; other errors are worth a retry. */
  async factsOf(email: ClaimedEmail, now: Date): Promise<FactsToSend> {
    const scope: ProjectScope = { projectId: email.projectId, merchantId: '', livemode: email.livemode };
    const data = email.eventData;
    const { customer } = await this.read(() => this.billing.getCustomer({ scope, customerId: email.customerId }));
    if (!customer) throw new EmailFactsMissing('billing answered no customer');
    const facts: EmailFacts = {
      type: email.type,
      locale: customerLocaleOf(customer.preferredLocale),
      customerName: customer.name ?? null,
      merchantName: email.fromName,
    };
    if (email.type.startsWith('invoice.')) {
      const invoiceId = text(data.id);
      if (!invoiceId) throw new EmailFactsMissing('the event names no invoice');
      const { invoice } = await this.read(() => this.billing.getInvoice({ scope, invoiceId }));
      if (!invoice) throw new EmailFactsMissing('billing answered no invoice');
      facts.invoice = {
        number: invoice.number,
        amountDue: Number(invoice.amountDue),
        amountPaid: Number(invoice.amountPaid),
        currency: invoice.currency as Currency,
        hostedInvoiceUrl: invoice.hostedInvoiceUrl,
        invoicePdf: invoice.invoicePdf,
        paidAt: invoice.paidAt ?? null,
      };
      // The amount the event was about, not what the invoice owes by the time this is written
      // (a payment_failed email written after a later payment still names the failed amount).
      if (email.type !== 'invoice.paid' && typeof data.amount_due === 'number') {
        facts.invoice.amountDue = toMinorUnits(data.amount_due);
      }
      if (email.type === 'invoice.payment_failed') facts.portalUrl = this.portalUrlOf(email, now);
    } else if (email.type.startsWith('subscription.')) {
      facts.subscription = {
        planName: text(data.plan_name) ?? '',
        trialEnd: date(data.trial_end),
        endsAt: data.cancel_at_period_end === true ? date(data.current_period_end) : null,
      };
    } else {
      facts.creditNote = {
        number: text(data.number) ?? '',
        amount: toMinorUnits(Number(data.amount)),
        currency: text(data.currency) as Currency,
        pdfUrl: text(data.credit_note_pdf) ?? '',
      };
    }
    return { to: customer.email, facts };
  }

  private portalUrlOf(email: ClaimedEmail, now: Date): string {
    if (!this.portalLinks) throw new Error('PORTAL_LINKS_KEY is not set: the portal link cannot be signed');
    const token = this.portalLinks.tokenOf({
      projectId: email.projectId,
      livemode: email.livemode,
      customerId: email.customerId,
      expiresAt: new Date(now.getTime() + PORTAL_LINK_TTL_MS),
    });
    return `${this.publicUrl}/portal/enter/${token}`;
  }

  private async read<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      // The email's own scope names the customer and invoice, so NOT_FOUND means they are gone.
      // Anything else (billing down, a deadline, a caller refused by a misconfigured
      // deployment) is retried: fixed later, the email still goes.
      if (isGrpcServiceError(err) && err.code === GrpcStatus.NOT_FOUND) {
        throw new EmailFactsMissing(`billing: ${err.details || err.message}`);
      }
      throw err;
    }
  }
}
