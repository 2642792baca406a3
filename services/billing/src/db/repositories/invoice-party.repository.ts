import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { PostalAddress } from '@billing/platform';
import type { DocumentLocale, InvoiceBuyer, InvoiceSeller, ProjectSeller } from '../../domain/invoice-parties';

/** The parties of one customer's new invoice: its buyer, and its project's seller if billing keeps one. */
export interface InvoiceParties {
  projectId: string;
  buyer: InvoiceBuyer;
  seller: InvoiceSeller | null;
}

interface PartiesRow {
  customer_id: string;
  project_id: string;
  name: string | null;
  email: string;
  address: PostalAddress | null;
  tax_id: string | null;
  preferred_locale: DocumentLocale;
  seller: InvoiceSeller | null;
}

/** A row of project_sellers `s` as the seller an invoice keeps. */
const SELLER_OF_ROW = `jsonb_build_object(
                'name', s.name, 'legal_name', s.legal_name, 'business_name', s.business_name,
                'address', s.address, 'tax_id', s.tax_id, 'support_email', s.support_email,
                'invoice_footer', s.invoice_footer)`;

/**
 * The seller and the buyer invoices keep (docs/api-behaviour.md §22): billing's copy of each
 * project's seller (table project_sellers), and the customers' details, read together for a
 * batch of new invoices.
 */
export class InvoicePartyRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /**
   * Keeps each project's seller unless the copy kept is as recent or more (a later `updated_at`
   * wins; the same one is the same seller), in one statement. `sellers` holds one entry per
   * project (latestSellerPerProject). Returns how many copies were written.
   */
  async keepSellers(sellers: ProjectSeller[], at: Date, transaction?: Transaction): Promise<number> {
    if (sellers.length === 0) return 0;
    const rows = sellers.map(({ projectId, merchantId, seller, updatedAt }) => ({
      ...seller,
      project_id: projectId,
      merchant_id: merchantId,
      updated_at: updatedAt.toISOString(),
    }));
    const written = await this.sequelize.query<{ project_id: string }>(
      `INSERT INTO project_sellers (project_id, merchant_id, name, legal_name, business_name, address, tax_id,
                                    support_email, invoice_footer, updated_at, kept_at)
       SELECT r.project_id, r.merchant_id, r.name, r.legal_name, r.business_name, r.address, r.tax_id,
              r.support_email, r.invoice_footer, r.updated_at, $2
         FROM jsonb_to_recordset($1::jsonb) AS r(project_id uuid, merchant_id uuid, name text, legal_name text,
              business_name text, address jsonb, tax_id text, support_email text, invoice_footer text,
              updated_at timestamptz)
       ON CONFLICT (project_id) DO UPDATE SET
         merchant_id = EXCLUDED.merchant_id, name = EXCLUDED.name, legal_name = EXCLUDED.legal_name,
         business_name = EXCLUDED.business_name, address = EXCLUDED.address, tax_id = EXCLUDED.tax_id,
         support_email = EXCLUDED.support_email, invoice_footer = EXCLUDED.invoice_footer,
         updated_at = EXCLUDED.updated_at, kept_at = EXCLUDED.kept_at
       WHERE project_sellers.updated_at < EXCLUDED.updated_at
       RETURNING project_id`,
      { bind: [JSON.stringify(rows), at], transaction, type: QueryTypes.SELECT },
    );
    return written.length;
  }

  /** The project's seller as billing keeps it now; null when it keeps none yet. */
  async sellerOf(projectId: string, transaction?: Transaction): Promise<InvoiceSeller | null> {
    const [row] = await this.sequelize.query<{ seller: InvoiceSeller }>(
      `SELECT ${SELLER_OF_ROW} AS seller FROM project_sellers s WHERE s.project_id = $1`,
      { bind: [projectId], transaction, type: QueryTypes.SELECT },
    );
    return row?.seller ?? null;
  }

  /**
   * The buyer of each customer as it is now, with its project's seller as billing keeps it (null
   * when billing keeps none yet), by customer id: one query for a whole batch of invoices.
   */
  async partiesOf(customerIds: string[], transaction?: Transaction): Promise<Map<string, InvoiceParties>> {
    if (customerIds.length === 0) return new Map();
    const rows = await this.sequelize.query<PartiesRow>(
      `SELECT c.id AS customer_id, c.project_id, c.name, c.email, c.address, c.tax_id, c.preferred_locale,
              CASE WHEN s.project_id IS NULL THEN NULL ELSE ${SELLER_OF_ROW} END AS seller
         FROM customers c
         LEFT JOIN project_sellers s ON s.project_id = c.project_id
        WHERE c.id = ANY($1::uuid[])`,
      { bind: [customerIds], transaction, type: QueryTypes.SELECT },
    );
    return new Map(
      rows.map((r) => [
        r.customer_id,
        {
          projectId: r.project_id,
          buyer: {
            name: r.name,
            email: r.email,
            address: r.address,
            tax_id: r.tax_id,
            preferred_locale: r.preferred_locale,
          },
          seller: r.seller,
        },
      ]),
    );
  }
}
