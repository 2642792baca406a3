import { escapeHtml, formatMoney, type Currency, type CustomerLocale } from '@billing/platform';
import type { CustomerEmailType } from './customer-emails';

/**
 * The one place each customer email's words live, per type and locale (docs/api-behaviour.md
 * §24): its subject, its paragraphs and its links, rendered as HTML (every value escaped) and as
 * plain text. Pure: what the email says comes in as facts.
 */

export interface InvoiceFacts {
  number: string;
  /** Minor units. */
  amountDue: number;
  amountPaid: number;
  currency: Currency;
  hostedInvoiceUrl: string;
  invoicePdf: string;
  paidAt: Date | null;
}

export interface SubscriptionFacts {
  planName: string;
  trialEnd: Date | null;
  /** When a cancellation at period end takes effect; null when it took effect at once. */
  endsAt: Date | null;
}

export interface CreditNoteFacts {
  number: string;
  /** Minor units. */
  amount: number;
  currency: Currency;
  pdfUrl: string;
}

/** What one email says, gathered from its event and billing. */
export interface EmailFacts {
  type: CustomerEmailType;
  locale: CustomerLocale;
  customerName: string | null;
  /** Who writes: the settings' from_name (the merchant as its customers know it), if any. */
  merchantName: string | null;
  invoice?: InvoiceFacts;
  subscription?: SubscriptionFacts;
  creditNote?: CreditNoteFacts;
  /** invoice.payment_failed: the customer portal, to update the card. */
  portalUrl?: string;
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

interface Link {
  label: string;
  url: string;
}

/** An email before rendering: the same words go to the HTML and the text part. */
interface EmailContent {
  subject: string;
  greeting: string;
  paragraphs: string[];
  links: Link[];
  signOff: string;
}

const dateFormatters = new Map<CustomerLocale, Intl.DateTimeFormat>();
function formatDay(date: Date, locale: CustomerLocale): string {
  let formatter = dateFormatters.get(locale);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
    dateFormatters.set(locale, formatter);
  }
  return formatter.format(date);
}

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`a ${what} email needs its ${what} facts`);
  return value;
};

/** The words of each email type in one locale. */
type Words = Record<CustomerEmailType, (facts: EmailFacts) => Omit<EmailContent, 'greeting' | 'signOff'>>;

const en: Words = {
  'invoice.created': (f) => {
    const invoice = need(f.invoice, 'invoice');
    const due = formatMoney(invoice.amountDue, invoice.currency, 'en');
    return {
      subject: `Invoice ${invoice.number}: ${due} due`,
      paragraphs: [`Your invoice ${invoice.number} is ready. Amount due: ${due}.`],
      links: [
        { label: 'View and pay the invoice', url: invoice.hostedInvoiceUrl },
        { label: 'Download the PDF', url: invoice.invoicePdf },
      ],
    };
  },
  'invoice.paid': (f) => {
    const invoice = need(f.invoice, 'invoice');
    const paid = formatMoney(invoice.amountPaid, invoice.currency, 'en');
    return {
      subject: `Receipt for invoice ${invoice.number}`,
      paragraphs: [
        `Thank you: we received your payment of ${paid} for invoice ${invoice.number}` +
          (invoice.paidAt ? ` on ${formatDay(invoice.paidAt, 'en')}.` : '.'),
      ],
      links: [
        { label: 'View the invoice', url: invoice.hostedInvoiceUrl },
        { label: 'Download the PDF', url: invoice.invoicePdf },
      ],
    };
  },
  'invoice.payment_failed': (f) => {
    const invoice = need(f.invoice, 'invoice');
    const due = formatMoney(invoice.amountDue, invoice.currency, 'en');
    return {
      subject: `Payment failed for invoice ${invoice.number}`,
      paragraphs: [
        `We could not charge your card for invoice ${invoice.number} (${due}).`,
        'You can pay the invoice now, or update your card and we will try it again.',
      ],
      links: [
        { label: 'Pay the invoice', url: invoice.hostedInvoiceUrl },
        { label: 'Update your card', url: need(f.portalUrl, 'portal') },
      ],
    };
  },
  'subscription.trial_will_end': (f) => {
    const subscription = need(f.subscription, 'subscription');
    const when = subscription.trialEnd ? ` on ${formatDay(subscription.trialEnd, 'en')}` : ' soon';
    return {
      subject: `Your ${subscription.planName} trial ends${when}`,
      paragraphs: [
        `Your free trial of ${subscription.planName} ends${when}.`,
        'Your subscription then continues and your card is charged, unless you cancel before.',
      ],
      links: [],
    };
  },
  'subscription.cancelled': (f) => {
    const subscription = need(f.subscription, 'subscription');
    return {
      subject: `Your ${subscription.planName} subscription is cancelled`,
      paragraphs: [
        subscription.endsAt
          ? `Your subscription to ${subscription.planName} is cancelled and ends on ${formatDay(subscription.endsAt, 'en')}.`
          : `Your subscription to ${subscription.planName} is cancelled.`,
      ],
      links: [],
    };
  },
  'credit_note.created': (f) => {
    const note = need(f.creditNote, 'credit note');
    const amount = formatMoney(note.amount, note.currency, 'en');
    return {
      subject: `Credit note ${note.number}: ${amount}`,
      paragraphs: [`We issued you credit note ${note.number} for ${amount}.`],
      links: [{ label: 'Download the credit note (PDF)', url: note.pdfUrl }],
    };
  },
};

const fr: Words = {
  'invoice.created': (f) => {
    const invoice = need(f.invoice, 'invoice');
    const due = formatMoney(invoice.amountDue, invoice.currency, 'fr');
    return {
      subject: `Facture ${invoice.number} : ${due} à régler`,
      paragraphs: [`Votre facture ${invoice.number} est disponible. Montant dû : ${due}.`],
      links: [
        { label: 'Voir et payer la facture', url: invoice.hostedInvoiceUrl },
        { label: 'Télécharger le PDF', url: invoice.invoicePdf },
      ],
    };
  },
  'invoice.paid': (f) => {
    const invoice = need(f.invoice, 'invoice');
    const paid = formatMoney(invoice.amountPaid, invoice.currency, 'fr');
    return {
      subject: `Reçu de la facture ${invoice.number}`,
      paragraphs: [
        `Merci : nous avons bien reçu votre paiement de ${paid} pour la facture ${invoice.number}` +
          (invoice.paidAt ? ` le ${formatDay(invoice.paidAt, 'fr')}.` : '.'),
      ],
      links: [
        { label: 'Voir la facture', url: invoice.hostedInvoiceUrl },
        { label: 'Télécharger le PDF', url: invoice.invoicePdf },
      ],
    };
  },
  'invoice.payment_failed': (f) => {
    const invoice = need(f.invoice, 'invoice');
    const due = formatMoney(invoice.amountDue, invoice.currency, 'fr');
    return {
      subject: `Échec du paiement de la facture ${invoice.number}`,
      paragraphs: [
        `Nous n’avons pas pu débiter votre carte pour la facture ${invoice.number} (${due}).`,
        'Vous pouvez payer la facture maintenant, ou mettre à jour votre carte : nous réessaierons.',
      ],
      links: [
        { label: 'Payer la facture', url: invoice.hostedInvoiceUrl },
        { label: 'Mettre à jour votre carte', url: need(f.portalUrl, 'portal') },
      ],
    };
  },
  'subscription.trial_will_end': (f) => {
    const subscription = need(f.subscription, 'subscription');
    const when = subscription.trialEnd ? ` le ${formatDay(subscription.trialEnd, 'fr')}` : ' bientôt';
    return {
      subject: `Votre essai ${subscription.planName} se termine${when}`,
      paragraphs: [
        `Votre essai gratuit de ${subscription.planName} se termine${when}.`,
        'Votre abonnement continuera ensuite et votre carte sera débitée, sauf si vous l’annulez avant.',
      ],
      links: [],
    };
  },
  'subscription.cancelled': (f) => {
    const subscription = need(f.subscription, 'subscription');
    return {
      subject: `Votre abonnement ${subscription.planName} est annulé`,
      paragraphs: [
        subscription.endsAt
          ? `Votre abonnement à ${subscription.planName} est annulé et prend fin le ${formatDay(subscription.endsAt, 'fr')}.`
          : `Votre abonnement à ${subscription.planName} est annulé.`,
      ],
      links: [],
    };
  },
  'credit_note.created': (f) => {
    const note = need(f.creditNote, 'credit note');
    const amount = formatMoney(note.amount, note.currency, 'fr');
    return {
      subject: `Avoir ${note.number} : ${amount}`,
      paragraphs: [`Nous vous avons émis l’avoir ${note.number} d’un montant de ${amount}.`],
      links: [{ label: 'Télécharger l’avoir (PDF)', url: note.pdfUrl }],
    };
  },
};

const WORDS: Record<CustomerLocale, Words> = { en, fr };

const greetingOf = (locale: CustomerLocale, name: string | null) =>
  locale === 'fr' ? (name ? `Bonjour ${name},` : 'Bonjour,') : name ? `Hello ${name},` : 'Hello,';

const signOffOf = (locale: CustomerLocale, merchant: string | null) =>
  locale === 'fr'
    ? merchant
      ? `Cordialement,\n${merchant}`
      : 'Cordialement'
    : merchant
      ? `Thank you,\n${merchant}`
      : 'Thank you';

/** The email of these facts, in their locale: subject, HTML (escaped) and plain text. */
export function renderCustomerEmail(facts: EmailFacts): RenderedEmail {
  const words = WORDS[facts.locale][facts.type](facts);
  const content: EmailContent = {
    ...words,
    greeting: greetingOf(facts.locale, facts.customerName),
    signOff: signOffOf(facts.locale, facts.merchantName),
  };
  return { subject: content.subject, html: htmlOf(content, facts.locale), text: textOf(content) };
}

function textOf(content: EmailContent): string {
  return [
    content.greeting,
    ...content.paragraphs,
    ...content.links.map((link) => `${link.label}: ${link.url}`),
    content.signOff,
  ].join('\n\n');
}

function htmlOf(content: EmailContent, locale: CustomerLocale): string {
  const paragraph = (text: string) => `<p>${escapeHtml(text).replace(/\n/g, '<br>')}</p>`;
  const links = content.links
    .map((link) => `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`)
    .join('\n');
  return [
    '<!doctype html>',
    `<html lang="${locale}">`,
    `<head><meta charset="utf-8"><title>${escapeHtml(content.subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    paragraph(content.greeting),
    ...content.paragraphs.map(paragraph),
    links,
    paragraph(content.signOff),
    '</body>',
    '</html>',
  ].join('\n');
}
