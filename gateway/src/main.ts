// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below (express, http) are instrumented.
// The edge: a request's own trace context is not continued (TracingOptions).
const tracing = startTracing('gateway', { continueInboundContext: false });

import { runService } from '@billing/platform';
import { loadGatewayConfig } from './config';
import { startGateway } from './server';

runService('gateway', tracing, loadGatewayConfig, startGateway);
