import { DomainError } from '@billing/platform';
import type { CardBehavior } from '../../domain/ledger';
import type { SandboxDeps } from '../../sandbox-deps';

/** Makes a saved card answer every later charge this way (docs/api-behaviour.md §8: exercising dunning). */
export async function setCardBehavior(deps: SandboxDeps, authorizationCode: string, behavior: CardBehavior) {
  if (!(await deps.authorizations.setBehavior(authorizationCode, behavior))) {
    throw new DomainError('not_found', 'Authorization not found');
  }
  return { authorization_code: authorizationCode, behavior };
}
