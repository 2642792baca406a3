import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { SandboxControlsClient, SandboxLedger } from '@billing/payments';
import { createPromiseClient, readRemoteError, type PromiseClient } from '@billing/platform';
import { billingV1 } from '@billing/proto';
import { payOnSandboxPage, queryDatabase, sharedPlatform, type SharedPlatform } from '@billing/testing';
import { createdBody, gatewayApi, merchantCalls, type Api, type Json } from './support/api';
import { openTaxedInvoice, type OpenInvoice } from './support/open-invoice';
import { sandboxControlsOf } from './support/test-clock';
import { waitFor } from './support/wait';

/** Where the portal asks the provider to send the payer back (the portal's own callback). */
const RETURN_URL = 'https://portal.example.test/p/card/callback';

/**
 * "Update card" of the customer portal (docs/api-behaviour.md §20, "Updating the card"; §24)
 * through billing's real gRPC, called with the gateway's certificate as the portal calls it, the
 * sandbox provider's card page answered as a payer's browser does, and money checked in the
 * sandbox's own ledger: the new card pays a PAST_DUE subscription's OPEN invoice at once and its
 * renewals after, the verification charge comes back once, and every apply after the first
 * changes nothing.
 */
describe('card update: StartCardUpdate and ApplyCardUpdate (billing over gRPC, sandbox card page)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let sandbox: SandboxControlsClient;
  let billing: PromiseClient<billingV1.BillingServiceClient>;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = sandboxControlsOf(platform);
    billing = createPromiseClient(
      billingV1.BillingServiceClient,
      platform.env.BILLING_GRPC_URL,
      20_000,
      platform.grpcCredentials('gateway'),
    );
  });
  afterAll(async () => {
    billing?.close();
    await platform?.stop();
  });

  const { post, get } = merchantCalls(() => api);
  const scopeOf = ({ m }: OpenInvoice) => ({ projectId: m.projectId, merchantId: m.id, livemode: false });
  const failure = async (call: Promise<unknown>) =>
    readRemoteError(
      await call.then(
        () => null,
        (e) => e,
      ),
    );
  const invoiceNow = async ({ m, invoice }: OpenInvoice): Promise<Json> =>
    (await get(m, `/invoices/${invoice.id}`)).body;
  const statusOf = async ({ m, subscriptionId }: OpenInvoice): Promise<string> =>
    (await get(m, `/subscriptions/${subscriptionId}`)).body.status;
  const paidEvents = async (invoiceId: string) =>
    queryDatabase(
      platform.database('billing'),
      `SELECT seq FROM outbox_events WHERE event_type = 'invoice.paid' AND payload->'data'->>'id' = $1`,
      [invoiceId],
    );
  const cardUpdateRow = async (reference: string) =>
    (
      await queryDatabase<{ state: string; checked: boolean }>(
        platform.database('billing'),
        'SELECT state, checked_at <> created_at AS checked FROM card_updates WHERE reference = $1',
        [reference],
      )
    )[0];
  const cardsOfSubscription = async (subscriptionId: string) =>
    queryDatabase(
      platform.database('billing'),
      'SELECT authorization_code FROM payment_authorizations WHERE subscription_id = $1',
      [subscriptionId],
    );
  /** What the provider holds for the payer: every transaction and refund, in minor units. */
  const ledgerOf = async (email: string) => sandbox.ledger({ email });
  /** The refunds of card updates (the trial checkout's own verification charge was refunded before). */
  const cardUpdateRefunds = (ledger: SandboxLedger) =>
    ledger.refunds
      .filter((r) => r.transaction_reference.startsWith('card-'))
      .map((r) => [r.transaction_reference, r.amount, r.status]);

  /** "Update card" pressed: the sandbox's card page, and the reference the portal's callback will name. */
  const start = async (open: OpenInvoice) => {
    const { authorizationUrl } = await billing.startCardUpdate({
      scope: scopeOf(open),
      customerId: open.payer.customerId,
      subscriptionId: open.subscriptionId,
      returnUrl: RETURN_URL,
    });
    return authorizationUrl;
  };
  /** The payer answers the card page; the reference of the way back to the portal. */
  const answerCardPage = async (authorizationUrl: string, outcome = 'success') => {
    const back = new URL(await payOnSandboxPage(authorizationUrl, outcome));
    expect(`${back.origin}${back.pathname}`).toBe(RETURN_URL);
    return back.searchParams.get('reference')!;
  };
  const apply = (open: OpenInvoice, transactionReference: string, customerId = open.payer.customerId) =>
    billing.applyCardUpdate({ scope: scopeOf(open), customerId, transactionReference });

  it("pays a PAST_DUE subscription's OPEN invoice at once with the new card (ACTIVE, invoice.paid once), refunds the verification charge once, and the next renewal charges the new card; two applies at once and a later one change nothing more", async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'card-past-due');
    const { m, payer, invoice, subscriptionId } = open;
    expect(await statusOf(open)).toBe('PAST_DUE');
    const amountDue = Math.round(invoice.amount_due * 100);

    const reference = await answerCardPage(await start(open));
    expect(reference).toMatch(/^card-[0-9a-f]{32}-[0-9a-f]{12}$/);
    // The portal's callback twice at once (a double load): applied once, both answer UPDATED.
    expect(await Promise.all([apply(open, reference), apply(open, reference)])).toEqual([
      { outcome: 'UPDATED' },
      { outcome: 'UPDATED' },
    ]);

    const paid = await invoiceNow(open);
    expect(paid).toMatchObject({ status: 'PAID', amount_paid: invoice.amount_due, amount_refunded: 0 });
    expect(await statusOf(open)).toBe('ACTIVE');
    expect(await paidEvents(invoice.id)).toHaveLength(1);

    // At the provider: the verification charge of 1.00 with the new card, the invoice charged to
    // that card, and the 1.00 refunded once.
    const ledger = await waitFor(
      'the verification charge refunded',
      () => ledgerOf(payer.email),
      (l) => l.refunds.some((r) => r.transaction_reference === reference && r.status === 'processed'),
      10_000,
    );
    const verification = ledger.transactions.find((t) => t.reference === reference)!;
    expect(verification).toMatchObject({ amount: 100, currency: 'NGN', status: 'success' });
    const newCard = verification.authorization_code;
    const invoiceCharges = ledger.transactions.filter((t) => t.metadata.invoice_id === invoice.id);
    const byStatus = (wanted: string) => invoiceCharges.filter((t) => t.status === wanted);
    expect(byStatus('success').map((t) => [t.amount, t.authorization_code])).toEqual([[amountDue, newCard]]);
    // The renewal's declined charge was the old card's.
    expect(byStatus('failed')).toHaveLength(1);
    expect(byStatus('failed')[0].authorization_code).not.toBe(newCard);
    expect(cardUpdateRefunds(ledger)).toEqual([[reference, 100, 'processed']]);

    // The same way back again (a reload), and billing's sweep after it: nothing more happens.
    expect(await apply(open, reference)).toEqual({ outcome: 'UPDATED' });
    await new Promise((r) => setTimeout(r, 4_500));
    const again = await ledgerOf(payer.email);
    expect(again.transactions).toHaveLength(ledger.transactions.length);
    expect(cardUpdateRefunds(again)).toEqual([[reference, 100, 'processed']]);
    expect(await paidEvents(invoice.id)).toHaveLength(1);
    expect(await cardUpdateRow(reference)).toMatchObject({ state: 'UPDATED' });

    // The next renewal charges the new card.
    const subscription = (await get(m, `/subscriptions/${subscriptionId}`)).body;
    const to = new Date(Date.parse(subscription.current_period_end) + 60_000).toISOString();
    expect((await post(m, '/test-clock/advance', { to })).status).toBe(200);
    const renewals = (await get(m, `/invoices?subscription_id=${subscriptionId}&limit=10`)).body as Json[];
    const next = renewals.find((i) => i.period_start === subscription.current_period_end);
    expect(next?.status).toBe('PAID');
    const renewal = (await ledgerOf(payer.email)).transactions.filter((t) => t.metadata.invoice_id === next!.id);
    expect(renewal.map((t) => [t.status, t.authorization_code])).toEqual([['success', newCard]]);
  });

  it('a card declined on the sandbox page leaves the old card, the OPEN invoice and PAST_DUE as they were, and charges and refunds nothing', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'card-declined');
    const { payer, invoice, subscriptionId } = open;
    const before = await ledgerOf(payer.email);

    const reference = await answerCardPage(await start(open), 'declined');
    expect(await apply(open, reference)).toEqual({ outcome: 'NOT_PAID' });

    expect(await invoiceNow(open)).toMatchObject({ status: 'OPEN', attempt_count: invoice.attempt_count });
    expect(await statusOf(open)).toBe('PAST_DUE');
    expect(await cardsOfSubscription(subscriptionId)).toEqual([]);
    expect(await cardUpdateRow(reference)).toMatchObject({ state: 'NOT_PAID' });
    const after = await ledgerOf(payer.email);
    expect(after.transactions.filter((t) => t.reference !== reference)).toEqual(before.transactions);
    expect(after.transactions.find((t) => t.reference === reference)?.status).toBe('failed');
    expect(after.refunds).toEqual(before.refunds);
  });

  it("a reference of another customer, another project or none started answers UNKNOWN and changes nothing; the customer's own apply then updates the card", async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'card-unknown');
    const { m } = open;
    const other = await createdBody(post(m, '/customers', { email: `other-${randomUUID()}@example.com` }));

    const reference = await answerCardPage(await start(open));
    expect(await apply(open, reference, other.id)).toEqual({ outcome: 'UNKNOWN' });
    expect(
      await billing.applyCardUpdate({
        scope: { ...scopeOf(open), projectId: randomUUID() },
        customerId: open.payer.customerId,
        transactionReference: reference,
      }),
    ).toEqual({ outcome: 'UNKNOWN' });
    expect(await apply(open, 'card-forged-000000000000')).toEqual({ outcome: 'UNKNOWN' });
    expect(await apply(open, '')).toEqual({ outcome: 'UNKNOWN' });
    // Not even asked of the provider: still STARTED, never checked; the invoice still OPEN.
    expect(await cardUpdateRow(reference)).toEqual({ state: 'STARTED', checked: false });
    expect((await invoiceNow(open)).status).toBe('OPEN');
    expect(cardUpdateRefunds(await ledgerOf(open.payer.email))).toEqual([]);

    expect(await apply(open, reference)).toEqual({ outcome: 'UPDATED' });
    expect((await invoiceNow(open)).status).toBe('PAID');
  });

  it('a payer who updated the card and never came back: billing applies the update on its own, once (invoice PAID, ACTIVE, the verification refunded)', async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'card-closed');
    const { invoice, payer } = open;
    const reference = await answerCardPage(await start(open));
    // No callback: PAYMENT_SETTLE_AFTER_MS later, billing asks the provider and applies it.
    await waitFor(
      'the invoice paid by the sweep',
      () => invoiceNow(open),
      (now) => now.status === 'PAID',
      20_000,
    );
    expect(await statusOf(open)).toBe('ACTIVE');
    expect(await paidEvents(invoice.id)).toHaveLength(1);
    expect(await cardUpdateRow(reference)).toMatchObject({ state: 'UPDATED' });
    const ledger = await waitFor(
      'the verification charge refunded',
      () => ledgerOf(payer.email),
      (l) => cardUpdateRefunds(l).length > 0,
      10_000,
    );
    expect(cardUpdateRefunds(ledger)).toEqual([[reference, 100, 'processed']]);
    // The payer's late way back finds it applied.
    expect(await apply(open, reference)).toEqual({ outcome: 'UPDATED' });
    expect(await paidEvents(invoice.id)).toHaveLength(1);
  });

  it("StartCardUpdate: another customer's or another project's subscription is NOT_FOUND, a return_url that is not http(s) is INVALID_ARGUMENT, a cancelled subscription FAILED_PRECONDITION; nothing is started", async () => {
    const open = await openTaxedInvoice(api, platform.gatewayUrl, 'card-start');
    const { m, subscriptionId } = open;
    const other = await createdBody(post(m, '/customers', { email: `other-${randomUUID()}@example.com` }));
    const startWith = (fields: Partial<billingV1.StartCardUpdateRequest>) =>
      failure(
        billing.startCardUpdate({
          scope: scopeOf(open),
          customerId: open.payer.customerId,
          subscriptionId,
          returnUrl: RETURN_URL,
          ...fields,
        }),
      );
    expect((await startWith({ customerId: other.id })).code).toBe(status.NOT_FOUND);
    expect((await startWith({ scope: { ...scopeOf(open), projectId: randomUUID() } })).code).toBe(status.NOT_FOUND);
    expect((await startWith({ subscriptionId: 'not-an-id' })).code).toBe(status.NOT_FOUND);
    expect((await startWith({ returnUrl: 'javascript:alert(1)' })).code).toBe(status.INVALID_ARGUMENT);
    expect((await startWith({ returnUrl: '' })).code).toBe(status.INVALID_ARGUMENT);
    // A cancelled subscription is charged no more: no card to update.
    expect((await post(m, `/subscriptions/${subscriptionId}/cancel`, {})).status).toBe(200);
    expect((await startWith({})).code).toBe(status.FAILED_PRECONDITION);
    const started = await queryDatabase(
      platform.database('billing'),
      'SELECT reference FROM card_updates WHERE subscription_id = $1',
      [subscriptionId],
    );
    expect(started).toEqual([]);
  });
});
