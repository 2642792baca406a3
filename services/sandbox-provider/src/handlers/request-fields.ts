import { z } from 'zod';
import { CURRENCIES } from '@billing/platform';

/** Paystack's request fields, with Paystack's own wording for the refusals. */

export const emailField = z.email({ error: 'Invalid Email Address Passed' });

const INVALID_AMOUNT = 'Invalid Amount Sent';

/** Positive integer minor units; Paystack also accepts them as a digit string. */
export const amountField = z
  .union([z.number(), z.string().regex(/^\d+$/).transform(Number)], { error: INVALID_AMOUNT })
  .pipe(z.number({ error: INVALID_AMOUNT }).int({ error: INVALID_AMOUNT }).positive({ error: INVALID_AMOUNT }));

export const currencyField = z.enum(CURRENCIES, { error: 'Currency not supported by merchant' }).default('NGN');

/** Paystack's rule, enforced so a reference the live API would refuse fails in test mode too. */
export const referenceField = z.string().regex(/^[A-Za-z0-9.=-]{1,100}$/, {
  error: 'Invalid reference: only -, ., = and alphanumeric characters are allowed',
});

/** An object, or (as Paystack's docs put it) a "stringified JSON object". */
export const metadataField = z
  .union([
    z.record(z.string(), z.unknown()),
    z.string().transform((text, ctx) => {
      try {
        const value = JSON.parse(text) as unknown;
        if (typeof value === 'object' && value !== null && !Array.isArray(value))
          return value as Record<string, unknown>;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'metadata must be a JSON object' });
      return z.NEVER;
    }),
  ])
  .default({});

export const webUrlField = z.url({ protocol: /^https?$/, error: 'Invalid URL: use a full http or https address' });
