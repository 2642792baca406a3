import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';

export { ROOT_CONTEXT, SpanKind, type Context, type Span };

/**
 * The platform's own spans (the outbox relay, event consumers, scheduled passes, deliveries).
 * Until startTracing has registered the SDK (tracing on) this is the API's no-op tracer, so the
 * spans cost next to nothing when tracing is off.
 */
const tracer = trace.getTracer('@billing/platform');

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The span's parent; the active context when absent, ROOT_CONTEXT for a trace of its own. */
  parent?: Context;
  links?: Link[];
}

/** Starts a span without making it active (its context is for work that runs elsewhere). */
export function startSpan(name: string, options: SpanOptions = {}): { span: Span; context: Context } {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind, attributes: options.attributes, links: options.links },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** Marks a span failed with the error's name and message (never its data). */
export function recordSpanError(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** Runs `work` in a new active span, which fails if `work` throws and ends when it settles. */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { span, context: spanContext } = startSpan(name, options);
  return context.with(spanContext, async () => {
    try {
      return await work(span);
    } catch (err) {
      recordSpanError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The context work runs in now (to hand on to work that runs later in another one). */
export function activeContext(): Context {
  return context.active();
}

/** The W3C trace headers (traceparent, tracestate) of a context, to store or send along. */
export function traceHeadersOf(from: Context = context.active()): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(from, headers);
  return headers;
}

/** The context that stored or received trace headers continue (ROOT_CONTEXT when there are none). */
export function contextOfTraceHeaders<Carrier>(headers: Carrier | undefined, getter?: TextMapGetter<Carrier>): Context {
  if (!headers) return ROOT_CONTEXT;
  return getter ? propagation.extract(ROOT_CONTEXT, headers, getter) : propagation.extract(ROOT_CONTEXT, headers);
}
