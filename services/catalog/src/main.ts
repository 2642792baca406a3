// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('catalog');

import { runService } from '@billing/platform';
import { loadCatalogConfig } from './config';
import { startCatalog } from './server';

runService('catalog', tracing, loadCatalogConfig, startCatalog);
