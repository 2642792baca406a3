import { DomainError, isUuid, type PageRequest, type ProjectScope } from '@billing/platform';
import type { InvoiceStatus } from '../../db/models/invoice.model';
import type { BillingDeps } from '../../billing-deps';
import { invoiceViews, type InvoiceView } from '../../read-models/invoice.read-model';

const STATUSES = ['DRAFT', 'OPEN', 'PAID', 'VOID', 'UNCOLLECTIBLE'];

export interface InvoiceFilter {
  status?: string;
  customerId?: string;
  subscriptionId?: string;
}

/** GET /invoices (docs/api-behaviour.md §11): newest first, filtered by status, customer, subscription. */
export async function listInvoices(
  deps: BillingDeps,
  scope: ProjectScope,
  page: PageRequest,
  filter: InvoiceFilter,
): Promise<InvoiceView[]> {
  if (filter.status && !STATUSES.includes(filter.status)) {
    throw DomainError.invalid([
      {
        loc: ['query', 'status'],
        msg: `Input should be one of ${STATUSES.join(', ')}`,
        type: 'enum',
        input: filter.status,
      },
    ]);
  }
  // An id that cannot exist matches nothing (an empty page, not a database error).
  if ((filter.customerId && !isUuid(filter.customerId)) || (filter.subscriptionId && !isUuid(filter.subscriptionId))) {
    return [];
  }
  const status = filter.status as InvoiceStatus | undefined;
  return invoiceViews(deps, await deps.invoices.list(scope, page, { ...filter, status }));
}
