import { status as GrpcStatus } from '@grpc/grpc-js';
import express, { type Express, type Request, type Response } from 'express';
import { CUSTOMER_PAGE_HEADERS, escapeHtml, isGrpcServiceError, type Logger } from '@billing/platform';
import type { DocumentsDeps } from '../documents-deps';
import { invoiceText } from '../rendering/document-text';
import { labelsFor } from '../rendering/labels';
import type { PdfDownload } from '../rendering/pdf-cache';
import { creditNotePdfOfLink } from '../usecases/credit-notes/credit-note-pdf.usecase';
import { finishInvoicePayment, type PaymentNotice } from '../usecases/invoices/finish-invoice-payment.usecase';
import { invoicePdfOfLink } from '../usecases/invoices/invoice-pdf.usecase';
import { showInvoicePage } from '../usecases/invoices/show-invoice-page.usecase';
import { startInvoicePayment } from '../usecases/invoices/start-invoice-payment.usecase';
import { documentPage, invoicePage } from './invoice-page-view';

const NOTICES: PaymentNotice[] = ['paid', 'refunded', 'not_paid', 'pending'];

const codeOf = (err: unknown) => (isGrpcServiceError(err) ? err.code : undefined);

/** A plain page that names no invoice: what a wrong link and every failure show. */
const statusPage = (res: Response, status: number, title: string, text: string) =>
  res.status(status).send(documentPage(title, 'en', `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`));

const notFound = (res: Response) =>
  statusPage(res, 404, 'Link not valid', 'This link does not open any document. Check the link you were given.');

/** A PDF as a download: `attachment; filename="<number>.pdf"` (docs/api-behaviour.md §22). */
export function sendPdf(res: Response, { pdf, filename }: PdfDownload): void {
  res.set({
    'content-type': 'application/pdf',
    'content-disposition': `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
  });
  res.send(pdf);
}

/**
 * Documents' HTTP side, reached through the gateway's proxy: the hosted invoice page of
 * `hosted_invoice_url` (/i/<token>), its "Pay" and the provider's way back, the PDF of
 * `invoice_pdf` and of `credit_note_pdf` (/cn/<token>/pdf) (docs/api-behaviour.md §22). The token
 * is the capability: no cookie, no API key. Any token billing did not sign is the same 404,
 * which says nothing about any invoice.
 */
export function createInvoicePagesApp(deps: DocumentsDeps, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    // The URL is the capability: never cached, never framed, never sent on as a referrer.
    res.set(CUSTOMER_PAGE_HEADERS);
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  async function renderInvoice(
    req: Request<{ token: string }>,
    res: Response,
    notice: PaymentNotice | 'not_payable' | null,
    status = 200,
  ) {
    const { document, payable } = await showInvoicePage(deps, req.params.token);
    const labels = labelsFor(document.locale);
    const words = {
      paid: labels.page.paid,
      refunded: labels.page.refunded,
      not_paid: labels.page.notPaid,
      pending: labels.page.pending,
      not_payable: labels.page.notPayable,
    };
    res.status(status).send(
      invoicePage(invoiceText(document), labels, document.status, {
        path: `/i/${req.params.token}`,
        payable,
        notice: notice ? { text: words[notice], problem: notice === 'not_paid' || notice === 'not_payable' } : null,
      }),
    );
  }

  app.get('/i/:token', async (req: Request<{ token: string }>, res) => {
    const asked = NOTICES.find((notice) => notice === req.query.payment) ?? null;
    await renderInvoice(req, res, asked);
  });

  app.post('/i/:token/pay', async (req: Request<{ token: string }>, res) => {
    try {
      res.redirect(303, await startInvoicePayment(deps, req.params.token));
    } catch (err) {
      // Paid, voided or written off meanwhile (another tab, the merchant): the page says so.
      if (codeOf(err) === GrpcStatus.FAILED_PRECONDITION) return renderInvoice(req, res, 'not_payable', 409);
      throw err;
    }
  });

  app.get('/i/:token/callback', async (req: Request<{ token: string }>, res) => {
    const reference = typeof req.query.reference === 'string' ? req.query.reference : '';
    const notice = await finishInvoicePayment(deps, req.params.token, reference);
    // Back to the page itself, so a reload shows the invoice rather than applying anything again.
    res.redirect(303, `/i/${encodeURIComponent(req.params.token)}${notice ? `?payment=${notice}` : ''}`);
  });

  app.get('/i/:token/pdf', async (req: Request<{ token: string }>, res) => {
    sendPdf(res, await invoicePdfOfLink(deps, req.params.token));
  });

  app.get('/cn/:token/pdf', async (req: Request<{ token: string }>, res) => {
    sendPdf(res, await creditNotePdfOfLink(deps, req.params.token));
  });

  app.use((_req, res) => notFound(res));
  // Express 5 passes rejected promises here; the customer sees a plain page, never a stack.
  app.use((err: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
    const code = codeOf(err);
    if (code === GrpcStatus.NOT_FOUND || code === GrpcStatus.INVALID_ARGUMENT) return notFound(res);
    if (code === GrpcStatus.UNAVAILABLE || code === GrpcStatus.DEADLINE_EXCEEDED) {
      res.set('retry-after', '5');
      return statusPage(
        res,
        503,
        'Try again in a moment',
        'This page is temporarily unavailable. Please try again shortly.',
      );
    }
    logger.error({ err }, 'invoice page failed');
    statusPage(res, 500, 'Something went wrong', 'We could not show this page. Please try again in a moment.');
  });
  return app;
}
