import { afterAttempt, DELIVERY_TRANSITIONS, transition, type DeliveryStatus } from '../src/domain/delivery-status';

const DELAYS = [60_000, 300_000, 1_800_000, 7_200_000];
const AT = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(AT.getTime() + ms);

describe('delivery state table (exhaustive)', () => {
  it('has exactly these transitions', () => {
    const after = (delivered: string | null, left: string | null, last: string | null, retry: string | null) => ({
      delivered,
      failed_with_attempts_left: left,
      failed_finally: last,
      retry_requested: retry,
    });
    expect(DELIVERY_TRANSITIONS).toEqual({
      PENDING: after('SUCCEEDED', 'RETRYING', 'FAILED', null),
      RETRYING: after('SUCCEEDED', 'RETRYING', 'FAILED', null),
      FAILED: after(null, null, null, 'RETRYING'),
      SUCCEEDED: after(null, null, null, null),
    });
  });

  it.each([
    ['PENDING', 1, 500, 'RETRYING', later(60_000)],
    ['RETRYING', 2, null, 'RETRYING', later(300_000)],
    ['RETRYING', 3, 404, 'RETRYING', later(1_800_000)],
    ['RETRYING', 4, 503, 'RETRYING', later(7_200_000)],
    ['RETRYING', 5, 500, 'FAILED', null],
    ['PENDING', 1, 200, 'SUCCEEDED', null],
    ['RETRYING', 5, 204, 'SUCCEEDED', null],
    ['PENDING', 1, 299, 'SUCCEEDED', null],
    ['PENDING', 1, 300, 'RETRYING', later(60_000)],
  ] as [DeliveryStatus, number, number | null, DeliveryStatus, Date | null][])(
    '%s, attempt %d answered %s -> %s at %s',
    (status, attempt, statusCode, next, nextAttemptAt) => {
      expect(afterAttempt(status, attempt, { statusCode }, AT, DELAYS)).toEqual({ status: next, nextAttemptAt });
    },
  );

  it('a manual retry makes a FAILED delivery due once: its attempt 6 has no delay after it', () => {
    expect(transition('FAILED', 'retry_requested')).toBe('RETRYING');
    expect(afterAttempt('RETRYING', 6, { statusCode: 200 }, AT, DELAYS)).toEqual({
      status: 'SUCCEEDED',
      nextAttemptAt: null,
    });
    expect(afterAttempt('RETRYING', 6, { statusCode: 500 }, AT, DELAYS)).toEqual({
      status: 'FAILED',
      nextAttemptAt: null,
    });
    for (const status of ['PENDING', 'RETRYING', 'SUCCEEDED'] as DeliveryStatus[]) {
      expect(() => transition(status, 'retry_requested')).toThrow(/no delivery transition/);
    }
  });

  it('refuses an attempt on a SUCCEEDED delivery', () => {
    expect(() => afterAttempt('SUCCEEDED', 2, { statusCode: 200 }, AT, DELAYS)).toThrow(/no delivery transition/);
  });
});
