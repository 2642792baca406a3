import { randomUUID } from 'node:crypto';
import {
  credentials,
  Metadata,
  Server,
  status as GrpcStatus,
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientUnaryCall,
  type handleUnaryCall,
  type ServerUnaryCall,
  type ServiceDefinition,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { loadPackageDefinition } from '@grpc/grpc-js';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import { isDatabaseUnavailable } from './database-errors';
import type { Logger } from './logger';
import { DomainError, domainErrorToGrpc, isGrpcServiceError } from './errors';
import { callerCheck, listenMutualTlsWithPlaintextHealth, type GrpcTransport } from './grpc-auth';
import { measuredGrpcService } from './metrics';

/** What a use-case handler sees of its call besides the request. */
export interface CallContext {
  metadata: Metadata;
  /**
   * When the caller stops waiting (absent: it set no deadline). A handler whose answer is another
   * service's answer calls it with this deadline (CallOverrides.deadline), so that the caller's
   * budget, not a second one, bounds the whole request.
   */
  deadline?: Date;
}

/** grpc-js answers a number (Infinity without a deadline) or a Date. */
function deadlineOf(call: ServerUnaryCall<unknown, unknown>): Date | undefined {
  const deadline = call.getDeadline();
  if (deadline instanceof Date) return deadline;
  return Number.isFinite(deadline) ? new Date(deadline) : undefined;
}

/** The service's named methods as promise handlers (the index signature of grpc-js is dropped). */
export type UnaryHandlers<S> = {
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res>
    ? (request: Req, context: CallContext) => Promise<Res>
    : never;
};

/**
 * Turns promise-returning handlers into grpc-js handlers. This is the one place where errors
 * become gRPC statuses: a DomainError keeps its kind, a downstream gRPC error keeps its status,
 * a database that cannot be reached is UNAVAILABLE, anything else is logged with an error id and answered as INTERNAL without internals.
 */
export function unaryService<S extends UntypedServiceImplementation>(
  handlers: Partial<UnaryHandlers<S>>,
  logger: Logger,
): S {
  const adapted: Record<string, handleUnaryCall<unknown, unknown>> = {};
  for (const [name, handler] of Object.entries(handlers) as [
    string,
    (r: unknown, c: CallContext) => Promise<unknown>,
  ][]) {
    adapted[name] = (call: ServerUnaryCall<unknown, unknown>, callback) => {
      handler(call.request, { metadata: call.metadata, deadline: deadlineOf(call) }).then(
        (response) => callback(null, response),
        (err: unknown) => callback(toServiceError(err, name, logger)),
      );
    };
  }
  return adapted as unknown as S;
}

function toServiceError(err: unknown, method: string, logger: Logger): Partial<ServiceError> {
  if (err instanceof DomainError) return domainErrorToGrpc(err);
  if (isGrpcServiceError(err)) {
    return { code: err.code, details: err.details, metadata: err.metadata };
  }
  // The database restarting or failing over: a retry will do (docs/api-behaviour.md §1).
  if (isDatabaseUnavailable(err)) {
    logger.warn({ err, method }, 'the database is unavailable; answered UNAVAILABLE');
    return { code: GrpcStatus.UNAVAILABLE, details: 'The database is unavailable; please retry' };
  }
  const errorId = randomUUID();
  logger.error({ err, method, error_id: errorId }, 'unhandled error in gRPC handler');
  return { code: GrpcStatus.INTERNAL, details: `Internal error (error id ${errorId})` };
}

export interface RegisteredService {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
  /** Fully qualified name reported by grpc.health.v1, e.g. "identity.v1.IdentityService". */
  name: string;
}

export interface RunningGrpcServer {
  port: number;
  health: HealthImplementation;
  /** Stops accepting calls, lets in-flight ones finish (up to graceMs), then closes. */
  shutdown(graceMs?: number): Promise<void>;
}

export async function startGrpcServer(options: {
  host?: string;
  port: number;
  services: RegisteredService[];
  /** GRPC_MAX_CONNECTION_AGE_MS and its grace (grpcServerEnvSchema). */
  maxConnectionAgeMs: number;
  maxConnectionAgeGraceMs: number;
  transport: GrpcTransport;
}): Promise<RunningGrpcServer> {
  const { transport } = options;
  const server = new Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs,
    'grpc.max_connection_age_grace_ms': options.maxConnectionAgeGraceMs,
    interceptors: transport.mutualTls ? [callerCheck] : [],
  });
  const statuses: Record<string, 'SERVING'> = { '': 'SERVING' };
  for (const service of options.services) {
    server.addService(service.definition, measuredGrpcService(service.definition, service.implementation));
    statuses[service.name] = 'SERVING';
  }
  const health = new HealthImplementation(statuses);
  health.addToServer(server);
  const host = options.host ?? '0.0.0.0';
  const listener = transport.mutualTls
    ? await listenMutualTlsWithPlaintextHealth(server, transport, host, options.port)
    : undefined;
  const port =
    listener?.port ??
    (await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${host}:${options.port}`, transport.serverCredentials, (err, bound) =>
        err ? reject(err) : resolve(bound),
      ),
    ));
  return {
    port,
    health,
    async shutdown(graceMs = 5_000) {
      for (const name of Object.keys(statuses)) health.setStatus(name, 'NOT_SERVING');
      // No new connections; resolves once the server has closed the open ones.
      const listenerClosed = listener?.close();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await listenerClosed;
    },
  };
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

export interface CallOverrides {
  deadlineMs?: number;
  /** An absolute deadline (a served call's CallContext.deadline); wins over deadlineMs. */
  deadline?: Date;
  metadata?: Metadata;
}

/** A ts-proto grpc-js client whose unary methods return promises and always carry a deadline. */
export type PromiseClient<C> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches any request/response pair
  [K in keyof C as C[K] extends UnaryMethod<any, any> ? K : never]: C[K] extends UnaryMethod<infer Req, infer Res>
    ? (request: Req, overrides?: CallOverrides) => Promise<Res>
    : never;
} & { close(): void };

export type ClientConstructor<C> = new (address: string, creds: ChannelCredentials, options?: object) => C;

export function createPromiseClient<C extends Client>(
  Ctor: ClientConstructor<C>,
  address: string,
  defaultDeadlineMs: number,
  channelCredentials: ChannelCredentials,
): PromiseClient<C> {
  const client = new Ctor(address, channelCredentials, {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
  return new Proxy({} as PromiseClient<C>, {
    get(_target, property) {
      if (property === 'close') return () => client.close();
      const method = (client as unknown as Record<string | symbol, unknown>)[property];
      if (typeof method !== 'function') return undefined;
      return (request: unknown, overrides: CallOverrides = {}) =>
        new Promise((resolve, reject) => {
          const deadline = overrides.deadline ?? new Date(Date.now() + (overrides.deadlineMs ?? defaultDeadlineMs));
          (method as UnaryMethod<unknown, unknown>).call(
            client,
            request,
            overrides.metadata ?? new Metadata(),
            { deadline },
            (err, response) => (err ? reject(err) : resolve(response)),
          );
        });
    },
  });
}

interface HealthClient extends Client {
  check(
    request: { service: string },
    options: Partial<CallOptions>,
    callback: (err: ServiceError | null, res: { status: string }) => void,
  ): void;
}

/**
 * grpc.health.v1 Check, through proto-loader (the standard proto shipped by grpc-health-check).
 * Plaintext, as kubelet probes ask: every service port answers health checks without TLS.
 */
export async function checkGrpcHealth(address: string, service = '', deadlineMs = 2000): Promise<string> {
  const definition = loadPackageDefinition(loadSync(healthProtoPath, { keepCase: true, enums: String }));
  const Health = (definition.grpc as unknown as { health: { v1: { Health: ClientConstructor<HealthClient> } } }).health
    .v1.Health;
  const client = new Health(address, credentials.createInsecure());
  try {
    return await new Promise<string>((resolve, reject) =>
      client.check({ service }, { deadline: new Date(Date.now() + deadlineMs) }, (err, res) =>
        err ? reject(err) : resolve(res.status),
      ),
    );
  } finally {
    client.close();
  }
}
