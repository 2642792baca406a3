import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message an SmtpInbox accepted. */
export interface ReceivedEmail {
  messageId: string;
  from: { name: string; address: string };
  replyTo: string | null;
  to: string;
  subject: string;
  text: string;
  html: string;
}

const firstAddress = (value: AddressObject | AddressObject[] | undefined) => {
  const object = Array.isArray(value) ? value[0] : value;
  return object?.value[0] ?? { name: '', address: '' };
};

/**
 * A real SMTP server of one test (smtp-server), on 127.0.0.1, that keeps what it accepts: the
 * customer emails' receiving end. `stop()` and `start()` again take it down and up on the same
 * port (an outage). With `holding`, it reads a message whole and holds its answer to DATA until
 * `release()`; a message whose client hung up meanwhile is refused, as an MTA that never
 * answered 250 has not taken it.
 */
export class SmtpInbox {
  readonly received: ReceivedEmail[] = [];
  holding = false;
  /** Recipients refused for good (550 to RCPT TO), as a server that knows no such mailbox. */
  readonly refused = new Set<string>();
  /** Messages read and waiting for release(). */
  held = 0;
  port = 0;
  private server?: SMTPServer;
  private readonly closedSessions = new Set<string>();
  private releaseHeld: (() => void)[] = [];

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port after a stop); nothing when it already does. */
  async start(): Promise<this> {
    if (this.server) return this;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onClose: (session) => void this.closedSessions.add(session.id),
      onRcptTo: (address, _session, callback) => {
        if (!this.refused.has(address.address)) return callback();
        const refusal = new Error('No such mailbox') as Error & { responseCode: number };
        refusal.responseCode = 550;
        callback(refusal);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', async () => {
          if (this.holding) {
            this.held++;
            await new Promise<void>((resolve) => this.releaseHeld.push(resolve));
            if (this.closedSessions.has(session.id)) return callback(new Error('client gone before the answer'));
          }
          try {
            this.received.push(await this.parse(Buffer.concat(chunks)));
            callback();
          } catch (err) {
            callback(err as Error);
          }
        });
      },
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.server.address();
    if (address && typeof address === 'object') this.port = address.port;
    return this;
  }

  /** Answers the held messages (those whose client is still there are accepted). */
  release(): void {
    this.holding = false;
    for (const resolve of this.releaseHeld.splice(0)) resolve();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.release();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The messages whose subject or recipient matches, as received. */
  to(address: string): ReceivedEmail[] {
    return this.received.filter((email) => email.to === address);
  }

  /** Waits until `count` messages to `address` arrived. */
  async waitFor(address: string, count = 1, ms = 30_000): Promise<ReceivedEmail[]> {
    const deadline = Date.now() + ms;
    while (this.to(address).length < count) {
      if (Date.now() > deadline) {
        throw new Error(`${this.to(address).length} of ${count} emails to ${address} arrived`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.to(address);
  }

  private async parse(raw: Buffer): Promise<ReceivedEmail> {
    const mail = await simpleParser(raw);
    const from = firstAddress(mail.from);
    return {
      messageId: mail.messageId ?? '',
      from: { name: from.name ?? '', address: from.address ?? '' },
      replyTo: firstAddress(mail.replyTo).address || null,
      to: firstAddress(mail.to).address ?? '',
      subject: mail.subject ?? '',
      text: mail.text ?? '',
      html: typeof mail.html === 'string' ? mail.html : '',
    };
  }
}
