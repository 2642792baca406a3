import { SandboxControlsClient } from '@billing/payments';
import type { SharedPlatform } from '@billing/testing';

/** `anchor` + k calendar months, the day clamped to the month's last day (docs/api-behaviour.md §4). */
export function addMonths(anchor: string, k: number): string {
  const d = new Date(anchor);
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + k;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(d.getUTCDate(), lastDay),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  ).toISOString();
}

/** `iso` + `ms` milliseconds, as ISO text. */
export const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** The sandbox provider's controls and ledger of a started platform: what was really charged. */
export const sandboxControlsOf = (platform: SharedPlatform) =>
  new SandboxControlsClient({
    baseUrl: platform.env.SANDBOX_PROVIDER_URL,
    secretKey: platform.env.SANDBOX_SECRET_KEY,
  });
