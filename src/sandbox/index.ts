export * from './bwrap/bwrap-provider.js';
export * from './cgroups.js';
export * from './image-ref.js';
export * from './images/index.js';
export * from './limit-guarantees.js';
export * from './output-buffer.js';
export * from './provider-registry.js';
export * from './sandbox.js';
