import { createPromiseClient, grpcTransport, listenHttp, startGrpcServer, type Logger } from '@billing/platform';
import { billingV1, documentsV1 } from '@billing/proto';
import { BillingDocuments } from './billing/billing-documents';
import type { DocumentsConfig } from './config';
import type { DocumentsDeps } from './documents-deps';
import { documentsHandlers } from './handlers/documents.handlers';
import { createInvoicePagesApp } from './http/invoice-pages';
import { documentFonts } from './rendering/fonts';
import { PdfCache } from './rendering/pdf-cache';

export interface RunningDocuments {
  port: number;
  stop(): Promise<void>;
}

/**
 * Wiring: a billing client, the PDF cache, the gRPC server (documents.v1) and the HTTP server of
 * the hosted invoice pages. No database and no NATS: every document is billing's, read when
 * it is asked for (docs/decisions.md, "Documents: a service of its own").
 */
export async function startDocuments(config: DocumentsConfig, logger: Logger): Promise<RunningDocuments> {
  // First, so that a process without its certificates stops before it opens anything.
  const transport = grpcTransport(config, logger);
  const billing = createPromiseClient(
    billingV1.BillingServiceClient,
    config.BILLING_GRPC_URL,
    config.GRPC_DEADLINE_MS,
    transport.channelCredentials,
  );
  // The fonts are read once, before the first request, so no download pays for them.
  documentFonts();
  const deps: DocumentsDeps = {
    documents: new BillingDocuments(billing),
    pdfs: new PdfCache({ maxBytes: config.DOCUMENTS_PDF_CACHE_BYTES }),
    logger,
  };
  const grpc = await startGrpcServer({
    transport,
    port: config.DOCUMENTS_GRPC_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    services: [
      {
        name: 'documents.v1.DocumentsService',
        definition: documentsV1.DocumentsServiceService,
        implementation: documentsHandlers(deps, logger),
      },
    ],
  });
  const pages = await listenHttp(createInvoicePagesApp(deps, logger), config.DOCUMENTS_HTTP_PORT);
  logger.info({ grpc_port: grpc.port, http_port: config.DOCUMENTS_HTTP_PORT }, 'documents listening');
  return {
    port: grpc.port,
    async stop() {
      await Promise.all([grpc.shutdown(), pages.close()]);
      billing.close();
    },
  };
}
