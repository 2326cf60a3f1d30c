export * from './action.js';
export type * from './env.js';
export * from './errors.js';
export * from './registry.js';
export * from './time-limit.js';
export * from './atomic-write.js';
