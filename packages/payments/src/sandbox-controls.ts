import { z } from 'zod';
import { PaymentProviderError } from './payment-provider';
import { ProviderHttp, type ProviderHttpOptions } from './provider-http';

/** How a saved sandbox card answers later charges (docs/api-behaviour.md §8 and 16.2: exercising dunning). */
export const CARD_BEHAVIORS = ['succeed', 'decline', 'insufficient_funds'] as const;
export type CardBehavior = (typeof CARD_BEHAVIORS)[number];

const behaviorAnswer = z.object({ authorization_code: z.string(), behavior: z.enum(CARD_BEHAVIORS) });

const ledgerTransaction = z.object({
  reference: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  email: z.string(),
  status: z.string(),
  gateway_response: z.string().nullable(),
  channel: z.string(),
  authorization_code: z.string().nullable(),
  paid_at: z.string().nullable(),
  created_at: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
const ledgerRefund = z.object({
  id: z.number().int(),
  transaction_reference: z.string(),
  amount: z.number().int(),
  status: z.string(),
  created_at: z.string(),
});
const ledgerAnswer = z.object({ transactions: z.array(ledgerTransaction), refunds: z.array(ledgerRefund) });

export type SandboxLedger = z.infer<typeof ledgerAnswer>;

/**
 * The sandbox provider's own controls, beyond the Paystack protocol: make a saved card fail from
 * now on, and read exactly what was charged and refunded. Test mode and tests only.
 */
export class SandboxControlsClient {
  private readonly http: ProviderHttp;

  constructor(options: ProviderHttpOptions) {
    this.http = new ProviderHttp(options);
  }

  async setAuthorizationBehavior(authorizationCode: string, behavior: CardBehavior): Promise<void> {
    const answer = await this.http.request(
      'POST',
      `/sandbox/authorizations/${encodeURIComponent(authorizationCode)}/behavior`,
      { behavior },
    );
    if (!behaviorAnswer.safeParse(answer).success) throw unexpected('behavior');
  }

  async ledger(filter: { email?: string; reference?: string } = {}): Promise<SandboxLedger> {
    const query = new URLSearchParams();
    if (filter.email) query.set('email', filter.email);
    if (filter.reference) query.set('reference', filter.reference);
    const parsed = ledgerAnswer.safeParse(await this.http.request('GET', `/sandbox/ledger?${query.toString()}`));
    if (!parsed.success) throw unexpected('ledger');
    return parsed.data;
  }
}

const unexpected = (what: string) =>
  new PaymentProviderError(`Sandbox provider's ${what} answer has an unexpected shape`, 200, false);
