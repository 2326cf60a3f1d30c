export * from './action.js';
export type * from './env.js';
export * from './errors.js';
export * from './host/atomic-write.js';
export * from './registry.js';
export * from './shell-quote.js';
export type * from './task.js';
export * from './time-limit.js';
