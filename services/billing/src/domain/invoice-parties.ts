import type { PostalAddress, Seller } from '@billing/platform';

/**
 * The seller and the buyer an invoice keeps (docs/api-behaviour.md §22), as they were when it was
 * created. Kept in the API's shape (snake_case, null for what was not given), which is also how
 * identity's merchant.seller_details_updated carries the seller.
 */

/** The languages of a customer's invoice documents; the first is the default. */
export const DOCUMENT_LOCALES = ['en', 'fr'] as const;
export type DocumentLocale = (typeof DOCUMENT_LOCALES)[number];

/** The merchant as the seller of a project's invoices. */
export type InvoiceSeller = Seller;

/** The customer an invoice is made out to. */
export interface InvoiceBuyer {
  name: string | null;
  email: string;
  address: PostalAddress | null;
  tax_id: string | null;
  preferred_locale: DocumentLocale;
}

/** The seller of one project as of `updatedAt` (the merchant's last change): billing's copy. */
export interface ProjectSeller {
  projectId: string;
  merchantId: string;
  seller: InvoiceSeller;
  updatedAt: Date;
}

/**
 * One seller per project: the one with the latest `updatedAt` (docs/events-and-test-mode.md,
 * "Internal events": later wins; two with the same `updatedAt` are the same seller, so the first
 * stays). Sorted by project id, so that two writers store their rows in one order and never wait
 * on each other crosswise.
 */
export function latestSellerPerProject(sellers: ProjectSeller[]): ProjectSeller[] {
  const latest = new Map<string, ProjectSeller>();
  for (const candidate of sellers) {
    const kept = latest.get(candidate.projectId);
    if (!kept || candidate.updatedAt.getTime() > kept.updatedAt.getTime()) latest.set(candidate.projectId, candidate);
  }
  return [...latest.values()].sort((a, b) => (a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : 0));
}
