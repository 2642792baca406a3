/**
 * Starts OpenTelemetry before the application modules load, so their http/grpc/pg/undici calls
 * are instrumented (how a trace travels: docs/decisions.md, "One trace per request"). Without OTEL_EXPORTER_OTLP_ENDPOINT tracing stays off and costs nothing: the
 * SDK is only loaded when it is on, because loading it takes about 1.3 s of CPU per process
 * (measured on these 2-core machines), paid seven times by every platform start, test runs
 * included. Reads process.env directly on purpose: it must run before config parsing imports
 * anything.
 */
export interface TracingOptions {
  /**
   * Whether a request's own traceparent / tracestate / baggage headers are continued. The
   * gateway, the platform's edge, says no: a trace context from the internet would let anyone
   * join their spans to ours and choose what is sampled. It still passes its own on.
   */
  continueInboundContext?: boolean;
}

export function startTracing(serviceName: string, options: TracingOptions = {}): { shutdown(): Promise<void> } {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return { shutdown: async () => undefined };
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand, see above */
  const { NodeTracerProvider, BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { GrpcInstrumentation } =
    require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { ATTR_SERVICE_NAME } =
    require('@opentelemetry/semantic-conventions') as typeof import('@opentelemetry/semantic-conventions');
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  // Traces only, so the tracer provider alone rather than the whole Node SDK, whose metrics and
  // logs exporters (which the collector of deploy/compose.yaml has no pipeline for) were half the
  // files of an install.
  const provider = new NodeTracerProvider({
    // As the Node SDK detects them: OTEL_RESOURCE_ATTRIBUTES (and OTEL_SERVICE_NAME) over the
    // service's name, then the host and the process.
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }).merge(
      detectResources({ detectors: [envDetector, processDetector, hostDetector] }),
    ),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` })),
    ],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context and baggage propagators; at
  // the edge they inject only (TracingOptions.continueInboundContext). The sampler is the SDK's
  // from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (parent-based always-on by default).
  const w3c = new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  });
  provider.register({
    propagator:
      options.continueInboundContext === false
        ? {
            inject: (context, carrier, setter) => w3c.inject(context, carrier, setter),
            extract: (context) => context,
            fields: () => w3c.fields(),
          }
        : w3c,
  });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Probes are not requests anyone wants to look at, and come every few seconds.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => request.url?.startsWith('/healthz') ?? false }),
      new ExpressInstrumentation(),
      // grpc.health.v1 (Check, Watch: no service of ours has a method of those names).
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      // Queries only inside a span: the pollers' idle queries (outbox relays, claims) would
      // otherwise each be a trace of one span, several a second per process.
      new PgInstrumentation({ requireParentSpan: true }),
      // Node's fetch and the undici package alike: provider calls and webhook POSTs, which carry
      // the traceparent header on.
      new UndiciInstrumentation(),
    ],
  });
  return { shutdown: () => provider.shutdown() };
}
