import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * How long the proxy holds a charge before it forwards it: longer than the tests' provider
 * timeout plus settlement's verify (and resend), so billing gives up on the held request and
 * settles it before it lands.
 */
export const HOLD_MS = 6_000;

/**
 * Billing reaches the sandbox through this proxy. Armed, it holds the first charge of a renewal
 * (no answer) and forwards it only after HOLD_MS: billing's call times out, settlement verifies
 * the reference while the held request has not reached the provider ("not found"), and the
 * held request lands late, as a frozen or queued provider would let it.
 */
export class HoldingProxy {
  private server?: Server;
  armed = false;
  held: string[] = [];
  forwardedLate: Promise<number>[] = [];

  /** Holds the next charge (and only it), forgetting any held before. */
  arm(): void {
    this.armed = true;
    this.held = [];
    this.forwardedLate = [];
  }

  constructor(
    readonly port: number,
    private readonly target: string,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const forward = () =>
      fetch(`${this.target}${req.url}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
        body: req.method === 'GET' ? undefined : body,
      });
    if (this.armed && req.url === '/transaction/charge_authorization' && this.held.length === 0) {
      this.held.push((JSON.parse(body.toString()) as { reference: string }).reference);
      // Never answered: the request reaches the provider only later.
      // A platform already stopped (a test that failed before the late request) answers 0.
      this.forwardedLate.push(
        new Promise((r) => setTimeout(r, HOLD_MS)).then(async () => (await forward()).status).catch(() => 0),
      );
      return;
    }
    const answer = await forward();
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  }
}
