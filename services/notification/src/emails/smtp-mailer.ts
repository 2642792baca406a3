import nodemailer, { type Transporter } from 'nodemailer';

/** One email as the SMTP server receives it. */
export interface OutgoingEmail {
  /** The email's id: its Message-ID, the same on every attempt. */
  id: string;
  fromName: string | null;
  replyTo: string | null;
  to: string;
  subject: string;
  html: string;
  text: string;
}

/**
 * SENT: the server accepted the message (250 after DATA). RETRY: it could not be asked (down,
 * refused the connection, timed out) or answered a temporary 4xx. FAILED: it refused the
 * message or its recipient for good (5xx).
 */
export type SmtpOutcome = { outcome: 'SENT' } | { outcome: 'RETRY' | 'FAILED'; error: string };

/**
 * Sends customer emails through the SMTP server of SMTP_URL (`smtp://host:port`,
 * `smtps://user:pass@host:465`) with nodemailer: a connection per message, so a server restarted
 * between two emails costs nothing, and bounded waits (connection, greeting, each reply) so a
 * hanging server holds an email no longer than its lease.
 */
export class SmtpMailer {
  private readonly transport: Transporter;
  private readonly domain: string;

  constructor(
    url: string,
    private readonly fromAddress: string,
    timeoutMs: number,
  ) {
    this.transport = nodemailer.createTransport({
      url,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      pool: false,
    } as nodemailer.TransportOptions);
    this.domain = fromAddress.split('@')[1] ?? 'localhost';
  }

  /** The stable Message-ID of an email: a receiver's store may recognise a second copy by it. */
  messageIdOf(id: string): string {
    return `<${id}@${this.domain}>`;
  }

  async send(email: OutgoingEmail): Promise<SmtpOutcome> {
    try {
      await this.transport.sendMail({
        messageId: this.messageIdOf(email.id),
        from: email.fromName ? { name: email.fromName, address: this.fromAddress } : this.fromAddress,
        ...(email.replyTo ? { replyTo: email.replyTo } : {}),
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
      });
      return { outcome: 'SENT' };
    } catch (err) {
      const { responseCode, message } = err as { responseCode?: number; message?: string };
      const error = (message ?? String(err)).slice(0, 500);
      const refusedForGood = typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600;
      return { outcome: refusedForGood ? 'FAILED' : 'RETRY', error };
    }
  }

  close(): void {
    this.transport.close();
  }
}
