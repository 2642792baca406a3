import { z } from 'zod';
import {
  baseEnvSchema,
  grpcServerEnvSchema,
  grpcTarget,
  grpcTlsEnvSchema,
  loadConfigOrExit,
  port,
} from '@billing/platform';

// No database and no NATS: documents keeps nothing of its own. It reads invoices and credit
// notes from billing, which owns them (docs/decisions.md, "Documents: a service of its own").
const documentsEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend({
    /** documents.v1 (the PDFs the API serves with an API key). */
    DOCUMENTS_GRPC_PORT: port(50056),
    /** The hosted invoice pages and the PDFs of their links; the gateway proxies to it. */
    DOCUMENTS_HTTP_PORT: port(8083),
    BILLING_GRPC_URL: grpcTarget('127.0.0.1:50053'),
    /** Deadline of every gRPC call documents makes (DEADLINE_EXCEEDED, a 503 to the caller). */
    GRPC_DEADLINE_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
    /** Public base address of the platform (the gateway): the pages' own links and the provider's callback. */
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8080'),
    /** PDFs kept per document state in this process (docs/decisions.md, "Invoice PDFs with PDFKit"). */
    DOCUMENTS_PDF_CACHE_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .max(4 * 1024 ** 3)
      .default(64 * 1024 ** 2),
  })
  .transform((env) => ({ ...env, PUBLIC_URL: env.PUBLIC_URL.replace(/\/$/, '') }));

export type DocumentsConfig = z.infer<typeof documentsEnvSchema>;

export const loadDocumentsConfig = (): DocumentsConfig => loadConfigOrExit(documentsEnvSchema);
