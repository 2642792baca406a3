export * from './payment-provider';
export * from './checkout-charge';
