export interface StatementBatchesOptions<Item, Result> {
  /** Runs one statement for the items; answers one result per item, in their order. */
  run(items: Item[]): Promise<Result[]>;
  /** Items with the same key never share a statement: a later one goes in the next. */
  key(item: Item): string;
  /** Statements under way at once; the items arriving meanwhile wait and go in the next one. */
  maxInFlight: number;
  /** Items per statement at most, so one statement's parameters and latency stay bounded. */
  maxItems: number;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(err: unknown): void;
}

/**
 * Groups the items of concurrent requests into one statement: one round trip and one commit for
 * the lot instead of one each, which is most of what a small write costs both node and
 * PostgreSQL. An item never waits for a timer: it is sent at once while fewer than maxInFlight
 * statements are under way, else it joins the next statement, sent as soon as one returns. When
 * a statement fails it rolled back as a whole, so its items are retried one per statement and a
 * bad item fails alone.
 */
export class StatementBatches<Item, Result> {
  private waiting: Waiting<Item, Result>[] = [];
  private inFlight = 0;

  constructor(private readonly options: StatementBatchesOptions<Item, Result>) {}

  run(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.sendNext();
    });
  }

  private sendNext(): void {
    while (this.inFlight < this.options.maxInFlight && this.waiting.length > 0) {
      const batch: Waiting<Item, Result>[] = [];
      const later: Waiting<Item, Result>[] = [];
      const keys = new Set<string>();
      for (const waiting of this.waiting) {
        const key = this.options.key(waiting.item);
        if (batch.length < this.options.maxItems && !keys.has(key)) {
          keys.add(key);
          batch.push(waiting);
        } else later.push(waiting);
      }
      this.waiting = later;
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.sendNext();
      });
    }
  }

  private async send(batch: Waiting<Item, Result>[]): Promise<void> {
    try {
      const results = await this.options.run(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.resolve(results[i]));
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      await Promise.all(batch.map((waiting) => this.send([waiting])));
    }
  }
}
