export { PatchType, type WatchStream } from '@kubets/rest';
export * from './client.js';
export * from './unstructured.js';
