/**
 * The one source of "now". Every time-based rule receives a Clock instead of calling
 * Date.now(), so that a test clock can move time for a project.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
