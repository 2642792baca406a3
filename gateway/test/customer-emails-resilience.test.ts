/**
 * @lane timing-critical kills notification mid-send and takes the SMTP server down
 */
import { createReplica, queryDatabase, SmtpInbox, type PlatformUnderTest } from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type Json, type RegisteredMerchant } from './support/api';
import { emailsOf, emailsSent, enableEmails, paidCustomer, startEmailPlatform } from './support/customer-emails';
import { waitFor } from './support/wait';

const PAID = ['invoice.created', 'invoice.paid'];

/**
 * Customer emails are sent once per event whatever happens to the SMTP server or to
 * notification (docs/api-behaviour.md §24, docs/decisions.md "Customer emails: a row per event,
 * sent once"): an outage is waited out with backoff, a process killed mid-send loses nothing and
 * sends nothing twice; the one window left (after the server's 250, before the record) is shown
 * for what it is: a second copy under the same Message-ID.
 */
describe('customer emails survive an SMTP outage and a killed notification', () => {
  let inbox: SmtpInbox;
  let platform: PlatformUnderTest;
  let api: Api;
  let m: RegisteredMerchant;

  beforeAll(async () => {
    inbox = await new SmtpInbox().start();
    // Shorter waits than the other email suites: a killed sender's claim comes back after its
    // lease (12 x EMAIL_TIMEOUT_MS + GRPC_DEADLINE_MS + 5 s), which these tests wait out twice.
    platform = await startEmailPlatform(inbox, { EMAIL_TIMEOUT_MS: '1000', GRPC_DEADLINE_MS: '2000' });
    api = gatewayApi(platform.gatewayUrl);
    m = await registerMerchant(api, 'resilient-emails');
    await enableEmails(api, m);
  });
  afterAll(async () => {
    await platform?.stop();
    await inbox?.stop();
  });

  /**
   * The customer's emails; none while the gateway's channel to a restarted notification
   * reconnects (a 503 meanwhile).
   */
  const listedOrNone = (customerId: string) => emailsOf(api, m, customerId).catch((): Json[] => []);

  /** Every email listed for these customers arrived exactly once, under its own Message-ID. */
  async function eachArrivedOnce(payers: { customerId: string; email: string }[]): Promise<void> {
    for (const payer of payers) {
      const listed = await emailsOf(api, m, payer.customerId);
      expect(listed.map((e: Json) => e.status)).toEqual(listed.map(() => 'SENT'));
      const arrived = inbox
        .to(payer.email)
        .map((r) => r.messageId)
        .sort();
      expect(arrived).toEqual(listed.map((e: Json) => `<${e.id}@platform.example>`).sort());
    }
  }

  it('the SMTP server down for a while: emails stay QUEUED with attempts growing, then every one arrives once', async () => {
    await inbox.stop();
    const payers: { customerId: string; email: string }[] = [];
    for (let k = 0; k < 3; k++) payers.push(await paidCustomer(api, platform.gatewayUrl, m, `outage-${k}`));
    // Retried with backoff (0.3 s, 0.6 s, then every second here): attempts grow, nothing is lost.
    const retried = await waitFor(
      'every email retried at least twice',
      async () => (await Promise.all(payers.map((p) => emailsOf(api, m, p.customerId)))).flat(),
      (emails) => emails.length === 6 && emails.every((e: Json) => e.status === 'QUEUED' && e.attempts >= 2),
    );
    const later = await waitFor(
      'attempts still growing',
      async () => (await Promise.all(payers.map((p) => emailsOf(api, m, p.customerId)))).flat(),
      (emails) =>
        emails.every(
          (e: Json) => e.status === 'QUEUED' && e.attempts > retried.find((r: Json) => r.id === e.id).attempts,
        ),
    );
    expect(later.every((e: Json) => e.sent_at === null)).toBe(true);
    await inbox.start();
    for (const payer of payers) await emailsSent(api, m, payer.customerId, PAID);
    await eachArrivedOnce(payers);
  });

  it('notification SIGKILLed while the SMTP server holds its answer: after a restart every email arrives once', async () => {
    inbox.holding = true;
    inbox.held = 0;
    const payer = await paidCustomer(api, platform.gatewayUrl, m, 'killed');
    // The message is on the wire, the server has not answered 250: kill the sender now, well
    // within the 1 s the client waits for that answer.
    const deadline = Date.now() + 10_000;
    while (inbox.held < 1) {
      if (Date.now() > deadline) throw new Error('no message reached the SMTP server');
      await new Promise((r) => setTimeout(r, 10));
    }
    await platform.processes.notification.stop('SIGKILL');
    // The server sees the connection close; a message whose sender is gone is not taken.
    await new Promise((r) => setTimeout(r, 300));
    inbox.release();
    expect(inbox.to(payer.email)).toHaveLength(0);
    await platform.processes.notification.start();
    // The killed process's claims come back when their lease runs out (about 19 s here).
    await waitFor(
      'both emails SENT',
      () => listedOrNone(payer.customerId),
      (emails) => emails.length === 2 && emails.every((e: Json) => e.status === 'SENT'),
      60_000,
    );
    await eachArrivedOnce([payer]);
    // The killed attempt was never recorded: one attempt each.
    expect((await emailsOf(api, m, payer.customerId)).map((e: Json) => e.attempts)).toEqual([1, 1]);
  });

  it('killed after the server accepted and before the record (the one window left): sent again under the same Message-ID, recorded SENT once', async () => {
    await platform.processes.notification.stop();
    const crashing = await createReplica(platform, 'notification', {
      NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT: 'true',
    });
    await crashing.process.start();
    const payer = await paidCustomer(api, platform.gatewayUrl, m, 'window');
    await waitFor(
      'the replica killed itself',
      async () => crashing.process.running,
      (running) => !running,
      20_000,
    );
    const [first] = await inbox.waitFor(payer.email, 1);
    await platform.processes.notification.start();
    await waitFor(
      'both emails SENT',
      () => listedOrNone(payer.customerId),
      (emails) => emails.length === 2 && emails.every((e: Json) => e.status === 'SENT'),
      60_000,
    );
    const listed = await emailsOf(api, m, payer.customerId);
    const ids = new Set(listed.map((e: Json) => `<${e.id}@platform.example>`));
    const arrived = inbox.to(payer.email);
    // Every copy is one of the two emails; the one the server took before the kill came twice,
    // with the same Message-ID (a mail store that keeps one per Message-ID shows it once).
    expect(arrived.every((r) => ids.has(r.messageId))).toBe(true);
    expect(new Set(arrived.map((r) => r.messageId))).toEqual(ids);
    expect(arrived.filter((r) => r.messageId === first.messageId)).toHaveLength(2);
    expect(arrived.filter((r) => r.messageId === first.messageId).map((r) => r.subject)).toEqual([
      first.subject,
      first.subject,
    ]);
    // The database holds one email per event and type, recorded SENT once.
    const rows = await queryDatabase<{ n: number }>(
      platform.database('notification'),
      `SELECT count(*)::int AS n FROM customer_emails WHERE customer_id = $1`,
      [payer.customerId],
    );
    expect(rows[0].n).toBe(2);
  });
});
