import type { IncomingMessage } from 'node:http';
import { queryDatabase, type PlatformUnderTest, type ServiceName } from '@billing/testing';

/** What the merchants' webhook receiver got: per event id, the delivery ids (webhook-id) and receipts. */
export class ReceivedEvents {
  readonly deliveriesByEvent = new Map<string, Set<string>>();
  receipts = 0;

  record(req: IncomingMessage, body: Buffer): void {
    const { id } = JSON.parse(body.toString('utf8')) as { id: string };
    const deliveries = this.deliveriesByEvent.get(id) ?? new Set<string>();
    deliveries.add(String(req.headers['webhook-id']));
    this.deliveriesByEvent.set(id, deliveries);
    this.receipts += 1;
  }
}

/** The services whose outboxes hold the events merchants' webhooks receive. */
const PRODUCERS: ServiceName[] = ['identity', 'catalog', 'billing'];

/**
 * Events a merchant's webhook must receive: test-mode events of a project, produced after its
 * webhook existed (fan-out matches the webhooks of the moment, docs/api-behaviour.md §12).
 */
export async function producedEvents(platform: PlatformUnderTest): Promise<Map<string, string>> {
  const webhooks = await queryDatabase<{ project_id: string; created_at: Date }>(
    platform.database('notification'),
    `SELECT project_id, min(created_at) AS created_at FROM webhooks WHERE NOT livemode GROUP BY project_id`,
  );
  const since = new Map(webhooks.map((w) => [w.project_id, new Date(w.created_at).getTime()]));
  const produced = new Map<string, string>();
  for (const service of PRODUCERS) {
    const rows = await queryDatabase<{ id: string; event_type: string; project_id: string; created_at: string }>(
      platform.database(service),
      `SELECT id, event_type, payload->>'project_id' AS project_id, payload->>'created_at' AS created_at
         FROM outbox_events WHERE payload->>'livemode' = 'false'`,
    );
    for (const row of rows) {
      const from = since.get(row.project_id);
      if (from !== undefined && Date.parse(row.created_at) >= from) produced.set(row.id, row.event_type);
    }
  }
  return produced;
}

/** Deliveries not yet settled (pending, retrying, or leased to an attempt under way). */
export async function unsettledDeliveries(platform: PlatformUnderTest): Promise<number> {
  const [row] = await queryDatabase<{ n: string }>(
    platform.database('notification'),
    `SELECT count(*) AS n FROM deliveries WHERE status IN ('PENDING', 'RETRYING')`,
  );
  return Number(row.n);
}

export interface ChargeFigures {
  invoicesByStatus: [string, number][];
  /** How many invoices were charged (successfully, net of refunds) n times, by n. */
  invoicesByNetCharges: [number, number][];
  /** Refunds processed by the provider, per invoice, by count. */
  invoicesByRefunds: [number, number][];
  doubleCharged: string[];
  /** Successful provider charges, not refunded, that no invoice of billing's accounts for. */
  unattributed: string[];
  /**
   * Customers whose balance is more than money could have paid for: what their cards paid (less
   * refunds) plus the credit their merchant granted, net (docs/api-behaviour.md §18: no sequence
   * of changes creates credit that was never paid), with those figures in minor units.
   */
  creditWithoutPayment: string[];
}

/**
 * The provider's ledger (the sandbox's database) against billing's: each successful charge is
 * put on its invoice (the charge's metadata, or billing's payment with its reference), less what
 * the provider refunded. An invoice with two net charges is a double charge.
 */
export async function chargeFigures(platform: PlatformUnderTest): Promise<ChargeFigures> {
  const billing = platform.database('billing');
  const invoicesByStatus = await queryDatabase<{ status: string; n: string }>(
    billing,
    `SELECT status, count(*) AS n FROM invoices GROUP BY status ORDER BY status`,
  );
  const payments = await queryDatabase<{ reference: string; invoice_id: string | null }>(
    billing,
    `SELECT reference, invoice_id FROM payments`,
  );
  const invoiceOf = new Map(payments.map((p) => [p.reference, p.invoice_id]));
  const charges = await queryDatabase<{
    reference: string;
    invoice_id: string | null;
    amount: string;
    refunded: string;
  }>(
    platform.database('sandbox-provider'),
    `SELECT t.reference, t.metadata->>'invoice_id' AS invoice_id, t.amount,
            (SELECT coalesce(sum(r.amount), 0) FROM refunds r
              WHERE r.transaction_reference = t.reference AND r.status = 'processed') AS refunded
       FROM transactions t WHERE t.status = 'success'`,
  );
  const netCharges = new Map<string, number>();
  const refunds = new Map<string, number>();
  const unattributed: string[] = [];
  for (const charge of charges) {
    const invoice = charge.invoice_id ?? invoiceOf.get(charge.reference) ?? null;
    const kept = Number(charge.refunded) < Number(charge.amount);
    if (!invoice) {
      if (kept) unattributed.push(charge.reference);
      continue;
    }
    if (kept) netCharges.set(invoice, (netCharges.get(invoice) ?? 0) + 1);
    else refunds.set(invoice, (refunds.get(invoice) ?? 0) + 1);
  }
  const histogram = (counts: Iterable<number>) => {
    const by = new Map<number, number>();
    for (const n of counts) by.set(n, (by.get(n) ?? 0) + 1);
    return [...by].sort(([a], [b]) => a - b);
  };
  // Money in: what the customer's cards paid less what was refunded, plus credit the merchant
  // granted less credit taken back. A balance above that could only come from credit nobody
  // paid for (a balance can be spent and given back again, so the proration credits themselves
  // may add up to more: they are not the measure).
  const credits = await queryDatabase<{ id: string; balance: string; paid: string; granted: string }>(
    billing,
    `SELECT c.id, c.balance,
        (SELECT coalesce(sum(t.amount), 0) FROM customer_balance_transactions t
          WHERE t.customer_id = c.id AND t.type = 'ADJUSTMENT') AS granted,
        (SELECT coalesce(sum(i.amount_paid - i.amount_refunded), 0) FROM invoices i
          WHERE i.customer_id = c.id) AS paid
       FROM customers c`,
  );
  return {
    invoicesByStatus: invoicesByStatus.map((r) => [r.status, Number(r.n)]),
    invoicesByNetCharges: histogram(netCharges.values()),
    invoicesByRefunds: histogram(refunds.values()),
    doubleCharged: [...netCharges].filter(([, n]) => n > 1).map(([invoice]) => invoice),
    unattributed,
    creditWithoutPayment: credits
      .filter((c) => Number(c.balance) > Number(c.paid) + Number(c.granted))
      .map((c) => `${c.id} (balance ${c.balance}, paid ${c.paid}, granted ${c.granted})`),
  };
}
