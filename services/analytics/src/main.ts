// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('analytics');

import { runService } from '@billing/platform';
import { loadAnalyticsConfig } from './config';
import { startAnalytics } from './server';

runService('analytics', tracing, loadAnalyticsConfig, startAnalytics);
