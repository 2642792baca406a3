import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import {
  credentials,
  experimental,
  ServerCredentials,
  ServerInterceptingCall,
  ServerListenerBuilder,
  ResponderBuilder,
  status as GrpcStatus,
  type ChannelCredentials,
  type Server,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { z } from 'zod';
import { booleanFlag, ConfigError } from './config';
import type { Logger } from './logger';

/**
 * Who may call whom over gRPC (docs/decisions.md, "Internal authentication"): for each gRPC
 * service, the service names that may appear in a caller's certificate. These are also the only
 * pairs a NetworkPolicy needs to let through.
 */
export const GRPC_CALLERS: Readonly<Record<string, readonly string[]>> = {
  'identity.v1.IdentityService': ['gateway', 'billing'],
  'policy.v1.PolicyService': ['gateway', 'billing'],
  'billing.v1.BillingService': ['gateway', 'catalog'],
  'catalog.v1.CatalogService': ['gateway'],
  'notification.v1.NotificationService': ['gateway'],
  'documents.v1.DocumentsService': ['gateway'],
  'portal.v1.PortalService': ['gateway'],
  'analytics.v1.AnalyticsService': ['gateway'],
};

/**
 * Callers allowed some methods of a service only: documents, which serves public pages, reads
 * billing's invoices and credit notes and starts and applies a hosted "Pay", and can do nothing
 * else there (no refund, no credit note, no change to a subscription); notification reads a
 * customer and an invoice for the emails it writes; portal, which serves one customer's pages,
 * reads that customer and takes the portal's actions, and nothing else.
 */
export const GRPC_METHOD_CALLERS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  'billing.v1.BillingService': {
    documents: [
      'GetInvoice',
      'GetCreditNote',
      'GetInvoiceByLink',
      'GetCreditNoteByLink',
      'StartInvoicePayment',
      'ApplyInvoicePayment',
    ],
    // The customer portal (docs/api-behaviour.md §24): one customer's view and the actions its
    // buttons take, through the same use cases as the API; nothing else of billing.
    portal: [
      'GetCustomer',
      'UpdateCustomer',
      'ListSubscriptions',
      'GetSubscription',
      'ListInvoices',
      'GetCardOnFile',
      'PreviewCancellation',
      'CancelSubscription',
      'PreviewPlanChange',
      'ChangePlan',
      'QuoteFirstInvoice',
      'StartCardUpdate',
      'ApplyCardUpdate',
    ],
    // Customer emails (docs/api-behaviour.md §24): the customer's address, name and locale, and
    // the invoice's number and links. Nothing else, and nothing that changes anything.
    notification: ['GetCustomer', 'GetInvoice'],
    // The history its read model is rebuilt from (docs/api-behaviour.md §25), and nothing else.
    analytics: ['ListAnalyticsEvents'],
  },
  // The plans a portal configuration names and a portal plan change moves to.
  'catalog.v1.CatalogService': { portal: ['GetPlan'] },
  // The merchant's name the portal shows, and the merchant of an entry link's project.
  'identity.v1.IdentityService': { portal: ['GetProjectSeller'] },
};

/**
 * Methods only the callers GRPC_METHOD_CALLERS names for them may call, not the callers of the
 * whole service in GRPC_CALLERS: billing's events of every project and mode, with their analytics
 * facts, are for the analytics service alone (docs/api-behaviour.md §25), not for the gateway.
 */
export const GRPC_RESERVED_METHODS: Readonly<Record<string, readonly string[]>> = {
  'billing.v1.BillingService': ['ListAnalyticsEvents'],
};

/** Answered to every caller, so that kubelet gRPC probes (which speak plaintext) keep working. */
const HEALTH_SERVICE = 'grpc.health.v1.Health';

/** The first byte of a TLS connection: a handshake record. */
const TLS_HANDSHAKE_RECORD = 0x16;
/** A connection that sends nothing this long is closed before it is handed to a server. */
const FIRST_BYTE_TIMEOUT_MS = 10_000;

/** How often the PEM files are read again, so that a certificate cert-manager renews is picked up. */
const CERTIFICATE_REFRESH_MS = 60_000;

/** Variables of every process that serves or calls gRPC (docs/configuration.md). */
export const grpcTlsEnvSchema = z.object({
  GRPC_TLS_CA_FILE: z.string().optional(),
  GRPC_TLS_CERT_FILE: z.string().optional(),
  GRPC_TLS_KEY_FILE: z.string().optional(),
  /** Plaintext gRPC without caller checks: only behind a service mesh that does mTLS itself. */
  GRPC_INSECURE: booleanFlag,
});

export type GrpcTlsConfig = z.infer<typeof grpcTlsEnvSchema> & { NODE_ENV: string };

/**
 * A process's gRPC transport: mutual TLS with its own service certificate, or plaintext when
 * GRPC_INSECURE is set (or, outside production, when no certificate is configured).
 */
export interface GrpcTransport {
  mutualTls: boolean;
  serverCredentials: ServerCredentials;
  channelCredentials: ChannelCredentials;
}

export function grpcTransport(config: GrpcTlsConfig, logger: Logger): GrpcTransport {
  const files = [config.GRPC_TLS_CA_FILE, config.GRPC_TLS_CERT_FILE, config.GRPC_TLS_KEY_FILE];
  const given = files.filter((file) => file !== undefined).length;
  if (config.GRPC_INSECURE || given === 0) {
    if (!config.GRPC_INSECURE && config.NODE_ENV === 'production') {
      throw new ConfigError(
        'Invalid configuration:\n  GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: required in production ' +
          '(or GRPC_INSECURE=true behind a service mesh that does mutual TLS)',
      );
    }
    logger.warn('gRPC without TLS: any caller that reaches the port is trusted');
    return {
      mutualTls: false,
      serverCredentials: ServerCredentials.createInsecure(),
      channelCredentials: credentials.createInsecure(),
    };
  }
  if (given !== files.length) {
    throw new ConfigError(
      'Invalid configuration:\n  GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE: set all three or none',
    );
  }
  const [caCertificateFile, certificateFile, privateKeyFile] = files as string[];
  // Read once now, so that a missing or unreadable file stops the start instead of every call.
  for (const file of files as string[]) {
    try {
      readFileSync(file);
    } catch (err) {
      throw new ConfigError(`Invalid configuration:\n  cannot read ${file}: ${(err as Error).message}`);
    }
  }
  const certificates = new experimental.FileWatcherCertificateProvider({
    caCertificateFile,
    certificateFile,
    privateKeyFile,
    refreshIntervalMs: CERTIFICATE_REFRESH_MS,
  });
  return {
    mutualTls: true,
    // The client certificate is asked for but not required by the handshake, so that a caller
    // without one gets UNAUTHENTICATED from the interceptor instead of a dropped connection.
    serverCredentials: experimental.createCertificateProviderServerCredentials(certificates, certificates, false),
    channelCredentials: experimental.createCertificateProviderChannelCredentials(certificates, certificates),
  };
}

/** The service names a verified peer certificate carries: its CN and its DNS subject alternative names. */
function serviceNamesOf(certificate: { subject?: { CN?: string | string[] }; subjectaltname?: string }): string[] {
  const names = [certificate.subject?.CN ?? []].flat();
  for (const entry of (certificate.subjectaltname ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4));
  }
  return names;
}

/**
 * Refuses a call whose caller has no certificate signed by the platform's CA (UNAUTHENTICATED),
 * or whose certificate names a service that GRPC_CALLERS (or, method by method,
 * GRPC_METHOD_CALLERS; for GRPC_RESERVED_METHODS, that alone) does not allow to call this
 * (PERMISSION_DENIED: the caller is known, it may just not do this).
 */
export const callerCheck: ServerInterceptor = (method, call) => {
  const [, service = '', rpc = ''] = method.path.split('/');
  const reserved = (GRPC_RESERVED_METHODS[service] ?? []).includes(rpc);
  const mayCall = (name: string) =>
    (!reserved && (GRPC_CALLERS[service] ?? []).includes(name)) ||
    (GRPC_METHOD_CALLERS[service]?.[name] ?? []).includes(rpc);
  return new ServerInterceptingCall(
    call,
    new ResponderBuilder()
      .withStart((next) => {
        next(
          new ServerListenerBuilder()
            .withOnReceiveMetadata((metadata, nextMetadata) => {
              if (service === HEALTH_SERVICE) return nextMetadata(metadata);
              // Empty unless the TLS handshake verified the peer's certificate against our CA.
              const peer = call.getAuthContext().sslPeerCertificate;
              if (!peer) {
                return call.sendStatus({
                  code: GrpcStatus.UNAUTHENTICATED,
                  details: 'a service certificate signed by the platform CA is required',
                });
              }
              const names = serviceNamesOf(peer);
              if (!names.some(mayCall)) {
                return call.sendStatus({
                  code: GrpcStatus.PERMISSION_DENIED,
                  details: `${names[0] ?? 'this caller'} may not call ${service}/${rpc}`,
                });
              }
              nextMetadata(metadata);
            })
            .build(),
        );
      })
      .build(),
  );
};

/**
 * Listens on one port for both kinds of connection: TLS ones (first byte 0x16, a handshake
 * record) go to the mutual-TLS server, plaintext ones to the same server without TLS, where
 * callerCheck answers only grpc.health.v1 and refuses everything else with UNAUTHENTICATED.
 * Kubelet gRPC probes cannot speak TLS; this keeps them on the service port.
 */
export async function listenMutualTlsWithPlaintextHealth(
  server: Server,
  transport: GrpcTransport,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const secure = server.createConnectionInjector(transport.serverCredentials);
  const plaintext = server.createConnectionInjector(ServerCredentials.createInsecure());
  const listener: TcpServer = createTcpServer((socket: Socket) => {
    // A reset before the first byte is the client's business; the servers handle errors after.
    socket.on('error', () => socket.destroy());
    const dropIdle = () => socket.destroy();
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS);
    socket.once('timeout', dropIdle);
    socket.once('readable', () => {
      socket.setTimeout(0);
      socket.removeListener('timeout', dropIdle);
      const first = socket.read(1) as Buffer | null;
      if (!first) return socket.destroy();
      socket.unshift(first);
      (first[0] === TLS_HANDSHAKE_RECORD ? secure : plaintext).injectConnection(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(port, host, () => resolve());
  });
  const address = listener.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}
