/**
 * The trace sampler is a setting (docs/configuration.md, OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG): a real process started with startTracing and a ratio of 0 keeps no
 * trace it starts itself, and keeps the spans of a trace its caller sampled (parent-based), so
 * that the gateway's decision holds for every service behind it. The spans are read as the
 * process exports them, over OTLP/HTTP to a receiver this test runs.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A process that starts tracing, then a trace of its own and a span under a sampled caller's trace. */
const PROCESS = `
const { startTracing } = require('@billing/platform/tracing');
const tracing = startTracing('sampler-test');
const api = require('@opentelemetry/api');
const tracer = api.trace.getTracer('sampler-test');
tracer.startSpan('a trace of its own').end();
const sampledCaller = api.trace.setSpanContext(api.context.active(), {
  traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, isRemote: true,
});
tracer.startSpan('under a sampled caller', {}, sampledCaller).end();
tracing.shutdown().then(() => process.exit(0));
`;

describe('the trace sampler setting', () => {
  let receiver: Server;
  let endpoint: string;
  const exported: string[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const spans = (
          JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] }
        ).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)));
        exported.push(...spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  beforeEach(() => exported.splice(0));

  const traced = (sampler: Record<string, string>) =>
    run(process.execPath, ['-e', PROCESS], {
      cwd: __dirname,
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, ...sampler },
      timeout: 60_000,
    });

  it('parentbased_traceidratio at 0 keeps no trace the process starts, and every span its sampled caller asked for', async () => {
    await traced({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    expect(exported).toEqual(['under a sampled caller']);
  });

  it('without the setting every trace is kept (parent-based, always on)', async () => {
    await traced({ OTEL_TRACES_SAMPLER: '', OTEL_TRACES_SAMPLER_ARG: '' });
    expect([...exported].sort()).toEqual(['a trace of its own', 'under a sampled caller']);
  });
});
