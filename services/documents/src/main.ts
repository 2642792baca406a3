// Only the tracing module: the platform index would load grpc-js before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('documents');

import { runService } from '@billing/platform';
import { loadDocumentsConfig } from './config';
import { startDocuments } from './server';

runService('documents', tracing, loadDocumentsConfig, startDocuments);
