export * from './action.js';
export * from './atomic-write.js';
export type * from './env.js';
export * from './errors.js';
export * from './registry.js';
export * from './shell-quote.js';
export type * from './task.js';
export * from './time-limit.js';
