export * from './clientset.js';
export * from './core.js';
export * from './descriptor.js';
export * from './generated/index.js';
export * from './group-client.js';
export * from './options.js';
export * from './typed-client.js';
export type * from './types/apiregistration.js';
export type * from './types/beta.js';
