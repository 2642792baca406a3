import { ConfigError, parseConfig } from '@billing/platform';
import { notificationEnvSchema } from '../src/config';

const KEY = 'a-portal-links-key-of-at-least-32-characters';
const production = {
  NODE_ENV: 'production',
  WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  GRPC_INSECURE: 'true',
};
const refusal = (env: Record<string, string>): string => {
  try {
    parseConfig(notificationEnvSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return 'accepted';
};

describe("notification's customer email settings (docs/configuration.md)", () => {
  it('SMTP_URL unset or empty: no SMTP server, emails stay QUEUED; smtp:// and smtps:// are taken', () => {
    expect(parseConfig(notificationEnvSchema, {}).SMTP_URL).toBeUndefined();
    expect(parseConfig(notificationEnvSchema, { SMTP_URL: '' }).SMTP_URL).toBeUndefined();
    expect(parseConfig(notificationEnvSchema, { SMTP_URL: 'smtp://127.0.0.1:2525' }).SMTP_URL).toBe(
      'smtp://127.0.0.1:2525',
    );
    expect(parseConfig(notificationEnvSchema, { SMTP_URL: 'smtps://u:p@smtp.example.com:465' }).SMTP_URL).toBe(
      'smtps://u:p@smtp.example.com:465',
    );
  });

  it('an SMTP_URL of another scheme stops the process naming it, without printing its password', () => {
    const message = refusal({ SMTP_URL: 'http://user:hunter2@smtp.example.com' });
    expect(message).toContain('SMTP_URL');
    expect(message).not.toContain('hunter2');
  });

  it('PORTAL_LINKS_KEY: a list of keys of 32 characters or more; required in production, where a dev- key is refused', () => {
    expect(parseConfig(notificationEnvSchema, { PORTAL_LINKS_KEY: `${KEY}, second-${KEY}` }).PORTAL_LINKS_KEY).toEqual([
      KEY,
      `second-${KEY}`,
    ]);
    expect(refusal({ PORTAL_LINKS_KEY: 'short' })).toContain('PORTAL_LINKS_KEY');
    expect(refusal(production)).toContain('PORTAL_LINKS_KEY: is required in production');
    expect(refusal({ ...production, PORTAL_LINKS_KEY: `dev-${KEY}` })).toContain(
      'PORTAL_LINKS_KEY: is a development key',
    );
    expect(refusal({ ...production, PORTAL_LINKS_KEY: KEY })).toBe('accepted');
  });

  it('the test-only crash after an accepted email is refused in production', () => {
    expect(
      refusal({ ...production, PORTAL_LINKS_KEY: KEY, NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT: 'true' }),
    ).toContain('NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT');
  });

  it('EMAIL_RETRY_DELAYS_MS: the default schedule, or a list of whole milliseconds', () => {
    expect(parseConfig(notificationEnvSchema, {}).EMAIL_RETRY_DELAYS_MS).toEqual([
      60_000, 300_000, 1_800_000, 7_200_000,
    ]);
    expect(parseConfig(notificationEnvSchema, { EMAIL_RETRY_DELAYS_MS: '300,600' }).EMAIL_RETRY_DELAYS_MS).toEqual([
      300, 600,
    ]);
    expect(refusal({ EMAIL_RETRY_DELAYS_MS: '1s' })).toContain('EMAIL_RETRY_DELAYS_MS');
  });
});
