import type { Clock } from '@billing/platform';
import type { PlanRepository } from '../db/repositories/plan.repository';

export interface CatalogDeps {
  plans: PlanRepository;
  clock: Clock;
}
