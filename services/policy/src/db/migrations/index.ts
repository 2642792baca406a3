import { testClocksMigration, type Migration } from '@billing/platform';
import { createCancellationPolicies } from './0001-create-cancellation-policies';

/** Every migration of the policy database, in order. Append; never edit a shipped one. */
export const policyMigrations: Migration[] = [createCancellationPolicies, testClocksMigration];
