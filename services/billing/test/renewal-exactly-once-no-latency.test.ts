/**
 * @lane timing-critical SIGKILLs billing mid-batch and runs two replicas
 */
import { describeRenewalsExactlyOnce, SCENARIOS } from './support/renewals-exactly-once';

// At the sandbox's own latency; the other latency is renewal-exactly-once-provider-latency.test.ts.
describeRenewalsExactlyOnce(SCENARIOS.noLatency);
