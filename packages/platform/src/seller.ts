import {
  postalAddressMessage,
  postalAddressOfMessage,
  type PostalAddress,
  type PostalAddressMessage,
} from './postal-address';

/**
 * The seller an invoice shows (docs/api-behaviour.md §22): the merchant's details in the API's
 * shape, null for what was not given. Identity's merchant.seller_details_updated carries it this
 * way, billing keeps it so per project and on each invoice.
 */
export interface Seller {
  /** `legal_name`, else `business_name`. */
  name: string;
  legal_name: string | null;
  business_name: string;
  address: PostalAddress | null;
  tax_id: string | null;
  support_email: string | null;
  invoice_footer: string | null;
}

/** The common.v1.Seller message as ts-proto types it: camelCase, an optional part unset. */
export interface SellerMessage {
  name: string;
  legalName?: string;
  businessName: string;
  address?: PostalAddressMessage;
  taxId?: string;
  supportEmail?: string;
  invoiceFooter?: string;
}

/** The seller's optional text details: their name in the API, and in a message. */
const OPTIONAL_TEXT = [
  ['legal_name', 'legalName'],
  ['tax_id', 'taxId'],
  ['support_email', 'supportEmail'],
  ['invoice_footer', 'invoiceFooter'],
] as const;

/** A seller for a gRPC message. */
export function sellerMessage(seller: Seller): SellerMessage {
  const message: SellerMessage = { name: seller.name, businessName: seller.business_name };
  if (seller.address) message.address = postalAddressMessage(seller.address);
  for (const [api, field] of OPTIONAL_TEXT) message[field] = seller[api] ?? undefined;
  return message;
}

/** A seller of a gRPC message in the API's shape. */
export function sellerOfMessage(message: SellerMessage): Seller {
  const seller: Seller = {
    name: message.name,
    legal_name: null,
    business_name: message.businessName,
    address: message.address ? postalAddressOfMessage(message.address) : null,
    tax_id: null,
    support_email: null,
    invoice_footer: null,
  };
  for (const [api, field] of OPTIONAL_TEXT) seller[api] = message[field] ?? null;
  return seller;
}
