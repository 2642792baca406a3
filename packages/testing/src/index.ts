export * from './databases';
export * from './ports';
export * from './processes';
