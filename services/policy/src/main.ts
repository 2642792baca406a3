// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('policy');

import { runService } from '@billing/platform';
import { loadPolicyConfig } from './config';
import { startPolicy } from './server';

runService('policy', tracing, loadPolicyConfig, startPolicy);
