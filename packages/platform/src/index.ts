import 'reflect-metadata';

export * from './clock';
export * from './config';
export * from './db';
export * from './errors';
export * from './grpc';
export * from './lifecycle';
export * from './logger';
export * from './nats';
export * from './outbox';
export * from './tracing';
export * from './money';
export * from './paging';
export * from './scope';
export * from './service-runtime';
export * from './polling-loop';
export * from './http-server';
export * from './project-clocks';
