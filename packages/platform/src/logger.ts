import pino, { type Logger } from 'pino';
import { trace } from '@opentelemetry/api';

export type { Logger };

/** Paths never written to logs, whatever a caller passes. */
const REDACT = [
  'password',
  'current_password',
  'access_token',
  'key',
  'secret',
  'authorization',
  '*.password',
  '*.current_password',
  '*.access_token',
  '*.key',
  '*.secret',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
];

export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { 'service.name': service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  });
}
