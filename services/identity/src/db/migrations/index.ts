import { outboxMigrations, type Migration } from '@billing/platform';
import { createIdentityTables } from './0001-create-identity-tables';
import { addMerchantSellerDetails } from './0002-add-merchant-seller-details';

/** Every migration of the identity database, in order. Append; never edit a shipped one. */
export const identityMigrations: Migration[] = [...outboxMigrations, createIdentityTables, addMerchantSellerDetails];
