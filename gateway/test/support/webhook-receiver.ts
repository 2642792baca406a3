import { listenLocally, type LocalEndpoint } from '@billing/testing';
import type { Json } from './api';
import { waitFor } from './wait';

/** A delivery body as a merchant's endpoint receives it. */
export interface ReceivedEvent {
  event: string;
  data: Json;
}

export interface WebhookReceiver {
  /** Where a webhook is registered to reach it. */
  url: string;
  /** Every delivery so far, in arrival order. */
  received: ReceivedEvent[];
  /** The delivery of `event` whose data has `id`, once it arrives. */
  delivered(event: string, id: string): Promise<ReceivedEvent>;
  close(): Promise<void>;
}

/** A merchant's webhook endpoint on this machine that answers 204 to every delivery and keeps it. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedEvent[] = [];
  const endpoint: LocalEndpoint = await listenLocally((_req, body, res) => {
    received.push(JSON.parse(body.toString('utf8')) as ReceivedEvent);
    res.writeHead(204).end();
  });
  const find = async (event: string, id: string) => received.find((r) => r.event === event && r.data.id === id);
  return {
    url: endpoint.url,
    received,
    delivered: async (event, id) =>
      (await waitFor(
        `${event} of ${id} at the receiver`,
        () => find(event, id),
        (r) => r !== undefined,
      ))!,
    close: () => endpoint.close(),
  };
}
