export * from './lister.js';
