import { randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** Codes in Paystack's shapes (CUS_xnxdt6s1zg1f4nx, AUTH_8dfhjjdt), so clients see nothing unusual. */
export const newCustomerCode = () => `CUS_${randomCode(15)}`;
export const newAuthorizationCode = () => `AUTH_${randomCode(12)}`;
/** The hosted page's URL is the only credential a payer needs: ~103 bits, not guessable. */
export const newAccessCode = () => randomCode(20);
/** Paystack makes up a reference when the merchant sends none. */
export const newReference = () => `T${randomCode(15)}`;
