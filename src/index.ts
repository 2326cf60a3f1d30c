export * from './core/index.js';
export * from './sandbox/index.js';
