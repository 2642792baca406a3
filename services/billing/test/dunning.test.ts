import { nextDunningAttempt } from '../src/domain/dunning';

const DAY = 24 * 60 * 60 * 1000;
const first = new Date('2027-03-08T09:00:00.000Z');
const day = (n: number) => new Date(first.getTime() + n * DAY);

describe('dunning schedule: retries 1, 3, 5 days after the first failure', () => {
  it('schedules each retry from the first failure, then stops', () => {
    expect(nextDunningAttempt(first, first, [1, 3, 5])).toEqual(day(1));
    expect(nextDunningAttempt(first, day(1), [1, 3, 5])).toEqual(day(3));
    expect(nextDunningAttempt(first, day(3), [1, 3, 5])).toEqual(day(5));
    expect(nextDunningAttempt(first, day(5), [1, 3, 5])).toBeNull();
  });

  it('a manual attempt between retries keeps the schedule', () => {
    expect(nextDunningAttempt(first, new Date(day(1).getTime() + 3600_000), [1, 3, 5])).toEqual(day(3));
    expect(nextDunningAttempt(first, first, [2, 7])).toEqual(day(2));
  });
});
