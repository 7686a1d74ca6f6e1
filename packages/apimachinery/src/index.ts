export * from './backoff.js';
export * from './fields.js';
export * from './gvk.js';
export * from './labels.js';
export * from './logger.js';
export * from './meta.js';
export * from './status.js';
export * from './watch.js';
