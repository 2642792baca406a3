export * from './payment-provider';
