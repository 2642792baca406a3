/**
 * The billing details form of the portal (docs/api-behaviour.md §24) as billing's UpdateCustomer
 * takes it: every field is sent, an empty address or tax id clears it. The e-mail is shown, not
 * edited: it names the customer at the payment provider and never changes (§10, as PATCH
 * /customers/{id}).
 */
export interface BillingDetails {
  name: string | undefined;
  address: {
    line1: string;
    line2?: string;
    city: string;
    state?: string;
    postalCode?: string;
    country: string;
  } | null;
  taxId: string | null;
}

export const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'state', 'postal_code', 'country'] as const;

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const optional = (value: unknown): string | undefined => text(value) || undefined;

export function billingDetailsOf(form: Record<string, unknown>): BillingDetails {
  const address = Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, text(form[field])]));
  const anyAddress = ADDRESS_FIELDS.some((field) => address[field] !== '');
  return {
    name: optional(form.name),
    address: anyAddress
      ? {
          line1: address.line1,
          line2: address.line2 || undefined,
          city: address.city,
          state: address.state || undefined,
          postalCode: address.postal_code || undefined,
          country: address.country.toUpperCase(),
        }
      : null,
    taxId: optional(form.tax_id) ?? null,
  };
}
