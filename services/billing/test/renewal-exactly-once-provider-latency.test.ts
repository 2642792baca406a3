/**
 * @lane timing-critical SIGKILLs billing mid-batch and runs two replicas
 */
import { describeRenewalsExactlyOnce, SCENARIOS } from './support/renewals-exactly-once';

// At a real provider's 500 ms; the other latency is renewal-exactly-once-no-latency.test.ts.
describeRenewalsExactlyOnce(SCENARIOS.providerLatency);
