import { randomUUID } from 'node:crypto';
import type { Request, Router } from 'express';
import type {
  AnalyticsSummary,
  CreditNote,
  Customer,
  CustomerDetail,
  CustomerEmail,
  Invoice,
  MrrMonth,
  Plan,
  RevenueMonth,
  Subscription,
} from '../api-answers';
import { formOf, numberOf, queryText, textOf } from '../form-fields';
import { frameFor, noticeOf, PAGE_SIZE, type PageKit } from '../page-kit';
import { customerPage } from '../views/customer.view';
import { customersPage } from '../views/customers.view';
import { homePage } from '../views/home.view';
import { invoicePage } from '../views/invoice.view';
import { invoicesPage } from '../views/invoices.view';
import { subscriptionsPage } from '../views/subscriptions.view';

/** Home (the §25 analytics), customers, subscriptions and invoices, with the credit-note form. */
export function mountBusinessPages(router: Router, kit: PageKit): void {
  const { call, page, onFirstPage } = kit;
  router.get('/', async (req, res) => {
    const currency = queryText(req, 'currency') ?? 'NGN';
    // No from/to: the routes' own default, the last 12 months of the project's clock (§25).
    const query = { currency };
    const [summary, mrr, revenue] = await Promise.all([
      call<AnalyticsSummary>(req, res, 'getAnalyticsSummary', { query }),
      call<MrrMonth[]>(req, res, 'getAnalyticsMrr', { query }),
      call<RevenueMonth[]>(req, res, 'getAnalyticsRevenue', { query }),
    ]);
    res.send(homePage(frameFor(res, 'home'), { currency: currency.toUpperCase(), summary, mrr, revenue }));
  });

  router.get('/customers', async (req, res) => {
    const email = queryText(req, 'email');
    const customers = await call<Customer[]>(req, res, 'listCustomers', { query: { email, ...page(req) } });
    res.send(
      customersPage(frameFor(res, 'customers'), { email, customers, limit: PAGE_SIZE, onFirstPage: onFirstPage(req) }),
    );
  });

  router.get('/customers/:customer_id', async (req: Request<{ customer_id: string }>, res) => {
    const params = { customer_id: req.params.customer_id };
    const detail = await call<CustomerDetail>(req, res, 'getCustomer', { params });
    const [invoices, emails] = await Promise.all([
      call<Invoice[]>(req, res, 'listInvoices', { query: { customer_id: detail.customer.id, limit: PAGE_SIZE } }),
      call<CustomerEmail[]>(req, res, 'listCustomerEmails', { params, query: { limit: PAGE_SIZE } }),
    ]);
    res.send(customerPage(frameFor(res, 'customers'), { detail, invoices, emails }));
  });

  router.get('/subscriptions', async (req, res) => {
    const status = queryText(req, 'status');
    const planId = queryText(req, 'plan_id');
    const [subscriptions, plans] = await Promise.all([
      call<Subscription[]>(req, res, 'listSubscriptions', { query: { status, plan_id: planId, ...page(req) } }),
      call<Plan[]>(req, res, 'listPlans', { query: { limit: 100 } }),
    ]);
    res.send(
      subscriptionsPage(frameFor(res, 'subscriptions'), {
        status,
        planId,
        plans,
        subscriptions,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
      }),
    );
  });

  router.get('/invoices', async (req, res) => {
    const status = queryText(req, 'status');
    const customerId = queryText(req, 'customer_id');
    const invoices = await call<Invoice[]>(req, res, 'listInvoices', {
      query: { status, customer_id: customerId, ...page(req) },
    });
    res.send(
      invoicesPage(frameFor(res, 'invoices'), {
        status,
        customerId,
        invoices,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
      }),
    );
  });

  router.get('/invoices/:invoice_id', async (req: Request<{ invoice_id: string }>, res) => {
    const invoice = await call<Invoice>(req, res, 'getInvoice', { params: { invoice_id: req.params.invoice_id } });
    const creditNotes = await call<CreditNote[]>(req, res, 'listCreditNotes', {
      query: { invoice_id: invoice.id, limit: 100 },
    });
    res.send(
      invoicePage(frameFor(res, 'invoices'), { invoice, creditNotes, formId: randomUUID(), notice: noticeOf(req) }),
    );
  });

  /** POST /invoices/{id}/credit-notes with the form's own Idempotency-Key: pressed twice, one note. */
  router.post('/invoices/:invoice_id/credit-notes', async (req: Request<{ invoice_id: string }>, res) => {
    const form = formOf(req);
    const formId = textOf(form.idempotency_key);
    if (formId && /^[\x20-\x7e]{1,255}$/.test(formId)) req.idempotencyKey = formId;
    const note = await call<CreditNote>(req, res, 'createCreditNote', {
      params: { invoice_id: req.params.invoice_id },
      body: {
        amount: numberOf(form.amount),
        reason: textOf(form.reason),
        refund_to: textOf(form.refund_to),
        memo: textOf(form.memo),
      },
    });
    res.redirect(303, `/dashboard/invoices/${encodeURIComponent(note.invoice_id)}?done=credit_note`);
  });
}
