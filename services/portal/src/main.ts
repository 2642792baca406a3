// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('portal');

import { runService } from '@billing/platform';
import { loadPortalConfig } from './config';
import { startPortal } from './server';

runService('portal', tracing, loadPortalConfig, startPortal);
