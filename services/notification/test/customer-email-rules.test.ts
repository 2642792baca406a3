import type { EventEnvelope } from '@billing/platform';
import {
  emailOfEvent,
  emailRetryDelayMs,
  emailSettingsViolations,
  DEFAULT_EMAIL_SETTINGS,
} from '../src/domain/customer-emails';
import { renderCustomerEmail, type EmailFacts } from '../src/domain/email-templates';

const CUSTOMER = '6b1f3a52-8d0e-4c36-9a4f-2e7c5d9b1a08';
const envelope = (
  event: string,
  data: Record<string, unknown>,
  projectId: string | null = CUSTOMER,
): EventEnvelope => ({
  id: 'c3f7fbe3-53d6-4a5d-a2a3-8983f2bd0d53',
  event,
  data,
  created_at: '2026-03-02T09:21:38.412Z',
  project_id: projectId,
  livemode: projectId ? false : null,
});

describe('which events email the customer (docs/api-behaviour.md §24)', () => {
  it.each([
    ['invoice.created', { customer_id: CUSTOMER, amount_due: 150 }, 'invoice.created'],
    ['invoice.created', { customer_id: CUSTOMER, amount_due: 0 }, null],
    ['invoice.paid', { customer_id: CUSTOMER, amount_due: 0 }, 'invoice.paid'],
    ['invoice.payment_failed', { customer_id: CUSTOMER, amount_due: 150 }, 'invoice.payment_failed'],
    ['subscription.trial_will_end', { customer_id: CUSTOMER }, 'subscription.trial_will_end'],
    ['subscription.cancelled', { customer_id: CUSTOMER }, 'subscription.cancelled'],
    ['credit_note.created', { customer_id: CUSTOMER }, 'credit_note.created'],
    ['subscription.renewed', { customer_id: CUSTOMER }, null],
    ['invoice.voided', { customer_id: CUSTOMER }, null],
    ['invoice.paid', { customer_id: 'not-a-uuid' }, null],
    ['invoice.paid', {}, null],
  ])('%s with %j -> %s', (event, data, expected) => {
    expect(emailOfEvent(envelope(event, data))?.type ?? null).toBe(expected);
  });

  it('an event of no project emails no one', () => {
    expect(emailOfEvent(envelope('invoice.paid', { customer_id: CUSTOMER }, null))).toBeNull();
  });

  it("takes the event's data alone: billing's internal analytics facts never reach an email", () => {
    const paid = {
      ...envelope('invoice.paid', { customer_id: CUSTOMER, amount_due: 75 }),
      analytics: { kind: 'invoice_payment', charged: 7500, tax: 523 },
    };
    const email = emailOfEvent(paid)!;
    expect(email.data).toEqual({ customer_id: CUSTOMER, amount_due: 75 });
    expect(JSON.stringify(email)).not.toContain('analytics');
  });
});

describe('retry delays: the configured ones in turn, then the last one again and again', () => {
  it.each([
    [1, 300],
    [2, 600],
    [3, 1000],
    [4, 1000],
    [40, 1000],
  ])('after %i failed attempts -> %i ms', (attempts, expected) => {
    expect(emailRetryDelayMs(attempts, [300, 600, 1000])).toBe(expected);
  });
});

describe('email settings', () => {
  it.each([
    [{ fromName: 'Acme Gym', replyTo: 'help@acme.example' }, []],
    [{ fromName: 'x'.repeat(100), replyTo: null }, []],
    [{ fromName: 'x'.repeat(101), replyTo: null }, ['from_name']],
    [{ fromName: 'Acme\r\nBcc: victim@example.com', replyTo: null }, ['from_name']],
    [{ fromName: null, replyTo: 'not an address' }, ['reply_to']],
    [{ fromName: null, replyTo: 'a@b.example, c@d.example' }, ['reply_to']],
    [{ fromName: null, replyTo: '<a@b.example>' }, ['reply_to']],
  ])('%j -> violations of %j', (settings, fields) => {
    const violations = emailSettingsViolations({ ...DEFAULT_EMAIL_SETTINGS, enabled: true, ...settings });
    expect(violations.map((v) => v.loc[1])).toEqual(fields);
  });
});

describe('templates: one per type and locale, HTML escaped, text with the same links', () => {
  const invoice = {
    number: 'INV-0001',
    amountDue: 15_000,
    amountPaid: 15_000,
    currency: 'NGN' as const,
    hostedInvoiceUrl: 'https://pay.example/i/abc?x=1&y=2',
    invoicePdf: 'https://pay.example/i/abc.pdf',
    paidAt: new Date('2026-03-02T09:21:38.412Z'),
  };
  const facts = (over: Partial<EmailFacts>): EmailFacts => ({
    type: 'invoice.paid',
    locale: 'en',
    customerName: 'Ada',
    merchantName: 'Acme Gym',
    invoice,
    ...over,
  });

  it.each([
    ['invoice.created', 'en', 'Invoice INV-0001: ₦150.00 due'],
    ['invoice.created', 'fr', 'Facture INV-0001 : 150,00\u00a0₦ à régler'],
    ['invoice.paid', 'en', 'Receipt for invoice INV-0001'],
    ['invoice.paid', 'fr', 'Reçu de la facture INV-0001'],
    ['invoice.payment_failed', 'en', 'Payment failed for invoice INV-0001'],
    ['invoice.payment_failed', 'fr', 'Échec du paiement de la facture INV-0001'],
  ] as const)('%s in %s: %s', (type, locale, subject) => {
    const email = renderCustomerEmail(facts({ type, locale, portalUrl: 'https://pay.example/portal/enter/t' }));
    expect(email.subject).toBe(subject);
    expect(email.text).toContain(invoice.hostedInvoiceUrl);
    expect(email.html).toContain('href="https://pay.example/i/abc?x=1&amp;y=2"');
  });

  it('every value in the HTML is escaped; the text keeps it as it is', () => {
    const email = renderCustomerEmail(facts({ customerName: '<script>alert(1)</script>', merchantName: 'A & B' }));
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).toContain('A &amp; B');
    expect(email.text).toContain('Hello <script>alert(1)</script>,');
  });

  it('subscription and credit-note emails in both locales', () => {
    const subscription = { planName: 'Pro', trialEnd: new Date('2026-03-05T00:00:00Z'), endsAt: null };
    expect(renderCustomerEmail(facts({ type: 'subscription.trial_will_end', subscription })).subject).toBe(
      'Your Pro trial ends on March 5, 2026',
    );
    expect(
      renderCustomerEmail(facts({ type: 'subscription.trial_will_end', locale: 'fr', subscription })).subject,
    ).toBe('Votre essai Pro se termine le 5 mars 2026');
    expect(renderCustomerEmail(facts({ type: 'subscription.cancelled', locale: 'fr', subscription })).subject).toBe(
      'Votre abonnement Pro est annulé',
    );
    const creditNote = {
      number: 'INV-0001-CN1',
      amount: 4000,
      currency: 'NGN' as const,
      pdfUrl: 'https://pay.example/cn/x',
    };
    const note = renderCustomerEmail(facts({ type: 'credit_note.created', creditNote }));
    expect(note.subject).toBe('Credit note INV-0001-CN1: ₦40.00');
    expect(note.text).toContain('https://pay.example/cn/x');
  });
});
