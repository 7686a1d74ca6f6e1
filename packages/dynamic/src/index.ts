export { PatchType, type WatchStream } from '@kubets/rest';
export * from './client.js';
export * from './dynamic-informer.js';
export * from './dynamic-lister.js';
export * from './unstructured.js';
