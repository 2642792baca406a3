// Only the tracing module: the platform index would load pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('sandbox-provider');

import { runService } from '@billing/platform';
import { loadSandboxConfig } from './config';
import { startSandboxProvider } from './server';

runService('sandbox-provider', tracing, loadSandboxConfig, startSandboxProvider);
