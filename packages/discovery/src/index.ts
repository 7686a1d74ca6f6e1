export * from './discovery.js';
export * from './diskcache.js';
export * from './errors.js';
export * from './memcache.js';
export * from './restmapper.js';
export type * from './types.js';
