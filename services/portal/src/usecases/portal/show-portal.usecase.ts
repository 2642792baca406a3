import type { billingV1, catalogV1 } from '@billing/proto';
import { scopeOf } from '../../browser-sessions/browser-session';
import { settingsFor } from '../../configurations/settings-of';
import { allowedPlans } from '../../configurations/allowed-plans';
import { planOrNull, renewalQuote, type RenewalQuote } from '../../subscriptions/renewal-quote';
import type { PortalSettings } from '../../domain/portal-configuration';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

export interface SubscriptionView {
  subscription: billingV1.Subscription;
  /** What its next period costs, discount and tax included; null when it renews no more. */
  renewal: RenewalQuote | null;
  /** The name of the plan a pending change moves it to. */
  pendingPlanName: string | null;
}

/** Everything the portal home shows of one customer (docs/api-behaviour.md §24). */
export interface PortalView {
  sellerName: string;
  settings: PortalSettings;
  customer: billingV1.Customer;
  subscriptions: SubscriptionView[];
  invoices: billingV1.Invoice[];
  card: billingV1.CardOnFile | null;
  plans: catalogV1.Plan[];
  csrfToken: string;
}

const PAGE = { limit: 100, startingAfter: '' };

/** The portal home of the session's customer: read from billing, catalog and identity, which own it all. */
export async function showPortal(deps: PortalDeps, session: PortalSessionModel): Promise<PortalView> {
  const scope = scopeOf(session);
  const customerId = session.customerId;
  const [{ customer }, { subscriptions }, { invoices }, { card }, seller, settings] = await Promise.all([
    deps.billing.getCustomer({ scope, customerId }),
    deps.billing.listSubscriptions({ scope, customerId, page: PAGE }),
    deps.billing.listInvoices({ scope, customerId, page: PAGE }),
    deps.billing.getCardOnFile({ scope, customerId }),
    deps.identity.getProjectSeller({ projectId: scope.projectId }),
    settingsFor(() => deps.configurations.find(scope)),
  ]);
  const plans = settings.planChangeEnabled ? await allowedPlans(deps, scope, settings) : [];
  const views = await Promise.all(
    subscriptions.map(async (subscription): Promise<SubscriptionView> => {
      const pendingPlanName = subscription.pendingPlanId
        ? ((await planOrNull(deps, scope, subscription.pendingPlanId))?.name ?? null)
        : null;
      return { subscription, renewal: await renewalQuote(deps, scope, subscription), pendingPlanName };
    }),
  );
  return {
    sellerName: seller.seller?.name ?? '',
    settings,
    customer: customer!,
    subscriptions: views,
    invoices,
    card: card ?? null,
    plans,
    csrfToken: session.csrfToken ?? '',
  };
}
