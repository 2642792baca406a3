import { z } from 'zod';
import { COUNTRY_CODE_MESSAGE, isCountryCode, type EventEnvelope } from '@billing/platform';
import type { ProjectSeller } from '../domain/invoice-parties';

/**
 * Identity's merchant.* events as billing reads them: billing produces none, but an event type
 * belongs in events/ whichever way it travels (eslint.config.js). The shape is identity's
 * (services/identity/src/events/merchant.events.ts, docs/events-and-test-mode.md, "Internal
 * events"); services share no code, so it is checked here on arrival.
 */

/** The seller of every project of a merchant changed, or a project was created. */
export const SELLER_DETAILS_UPDATED = 'merchant.seller_details_updated';

const text = z.string().min(1);
const address = z.object({
  line1: text,
  line2: text.nullable(),
  city: text,
  state: text.nullable(),
  postal_code: text.nullable(),
  country: z.string().refine(isCountryCode, { message: COUNTRY_CODE_MESSAGE }),
});

const sellerDetailsUpdatedData = z.object({
  merchant_id: z.uuid(),
  project_ids: z.array(z.uuid()),
  seller: z.object({
    name: text,
    legal_name: text.nullable(),
    business_name: text,
    address: address.nullable(),
    tax_id: text.nullable(),
    support_email: text.nullable(),
    invoice_footer: text.nullable(),
  }),
  updated_at: z.iso.datetime({ offset: true }),
});

/**
 * The sellers a batch of events announces: one per project of each merchant.seller_details_updated,
 * as of its `updated_at`; events of other types are none of billing's. An event that does not
 * have the shape throws, so the consumer delivers it again and at last parks it where it can be
 * looked at (docs/events-and-test-mode.md), instead of billing keeping half a seller.
 */
export function sellersAnnounced(envelopes: EventEnvelope[]): ProjectSeller[] {
  return envelopes
    .filter((envelope) => envelope.event === SELLER_DETAILS_UPDATED)
    .flatMap((envelope) => {
      const data = sellerDetailsUpdatedData.parse(envelope.data);
      const updatedAt = new Date(data.updated_at);
      return data.project_ids.map((projectId) => ({
        projectId,
        merchantId: data.merchant_id,
        seller: data.seller,
        updatedAt,
      }));
    });
}
