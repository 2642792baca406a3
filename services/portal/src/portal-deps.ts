import type { Clock, Logger, PortalLinks } from '@billing/platform';
import type { CardUpdates, PortalBilling, PortalCatalog, PortalIdentity } from './clients/platform-clients';
import type { PortalConfigurationRepository } from './db/repositories/portal-configuration.repository';
import type { PortalSessionRepository } from './db/repositories/portal-session.repository';

/** The portal's fixed settings, from its configuration (docs/configuration.md). */
export interface PortalSettingsOfProcess {
  /** The gateway's public address: session URLs and the provider's way back start with it. */
  publicUrl: string;
  linkTtlSeconds: number;
  idleTtlSeconds: number;
}

/** What the portal's use cases depend on; built once in server.ts. */
export interface PortalDeps {
  configurations: PortalConfigurationRepository;
  sessions: PortalSessionRepository;
  billing: PortalBilling;
  catalog: PortalCatalog;
  identity: PortalIdentity;
  cards: CardUpdates;
  /** The entry links of customer emails (docs/api-behaviour.md §24). */
  links: PortalLinks;
  clock: Clock;
  settings: PortalSettingsOfProcess;
  logger: Logger;
}
