import { notOffered } from '../../actions/action-rules';
import { scopeOf } from '../../browser-sessions/browser-session';
import { settingsFor } from '../../configurations/settings-of';
import type { BillingDetails } from '../../domain/billing-details';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

/**
 * "Confirm" of "Update billing details": billing's UpdateCustomer, as PATCH /customers/{id} calls
 * it, so its rules check the values and the invoices made from now on carry them (§22).
 */
export async function updateBillingDetails(
  deps: PortalDeps,
  session: PortalSessionModel,
  details: BillingDetails,
): Promise<void> {
  const scope = scopeOf(session);
  const settings = await settingsFor(() => deps.configurations.find(scope));
  if (!settings.billingDetailsUpdate) throw notOffered('Updating billing details');
  await deps.billing.updateCustomer({
    scope,
    customerId: session.customerId,
    name: details.name,
    address: details.address ?? undefined,
    taxId: details.taxId ?? undefined,
    clearedFields: [...(details.address ? [] : ['address']), ...(details.taxId ? [] : ['tax_id'])],
  });
}
