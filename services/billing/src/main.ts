// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('billing');

import { runService } from '@billing/platform';
import { loadBillingConfig } from './config';
import { startBilling } from './server';

runService('billing', tracing, loadBillingConfig, startBilling);
