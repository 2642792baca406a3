import type { WhereOptions } from 'sequelize';
import { DomainError, findPage, isUuid, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import { InvoiceModel } from '../db/models';
import { invoiceViews, type InvoiceView } from './invoice-views';

const STATUSES = ['DRAFT', 'OPEN', 'PAID', 'VOID', 'UNCOLLECTIBLE'];

export interface InvoiceFilter {
  status?: string;
  customerId?: string;
  subscriptionId?: string;
}

/** GET /invoices (docs/api-behaviour.md §11): newest first, filtered by status, customer, subscription. */
export async function listInvoices(
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
  const where = {
    ...scopeWhere(scope),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.customerId ? { customerId: filter.customerId } : {}),
    ...(filter.subscriptionId ? { subscriptionId: filter.subscriptionId } : {}),
  } as WhereOptions;
  return invoiceViews(await findPage(InvoiceModel, where, page));
}
