// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('identity');

import { runService } from '@billing/platform';
import { loadIdentityConfig } from './config';
import { startIdentity } from './server';

runService('identity', tracing, loadIdentityConfig, startIdentity);
