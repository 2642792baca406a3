// Only the tracing module: the platform index would load grpc-js and pg before instrumentation.
import { startTracing } from '@billing/platform/tracing';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('notification');

import { runService } from '@billing/platform';
import { loadNotificationConfig } from './config';
import { startNotification } from './server';

runService('notification', tracing, loadNotificationConfig, startNotification);
