export * from './monthly-recurring-revenue';
export * from './movements';
export * from './summary';
export * from './facts';
