export * from './databases';
export * from './ports';
export * from './processes';
export * from './platform-processes';
export * from './event-testbed';
export * from './local-endpoint';
export * from './hosted-checkout';
export * from './metrics';
