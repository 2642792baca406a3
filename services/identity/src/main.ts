import { startTracing } from '@billing/platform';

// Tracing first, so the modules loaded below are instrumented.
const tracing = startTracing('identity');

import { createLogger, exitOnStartupFailure, runUntilSignalled } from '@billing/platform';
import { loadIdentityConfig } from './config';
import { startIdentity } from './server';

const config = loadIdentityConfig();
const logger = createLogger('identity', config.LOG_LEVEL);

startIdentity(config, logger).then((identity) => {
  runUntilSignalled(logger, async () => {
    await identity.stop();
    await tracing.shutdown();
  });
}, exitOnStartupFailure(logger));
