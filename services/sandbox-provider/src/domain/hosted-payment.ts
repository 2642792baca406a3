import { DomainError } from '@billing/platform';

/** An access code that names no payment: the payer's page says the link is not valid (404). */
export const unknownPayment = () => new DomainError('not_found', 'This payment link is not valid');
