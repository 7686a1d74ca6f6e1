export * from './broadcaster.js';
export * from './correlator.js';
export * from './reference.js';
export * from './sink.js';
export * from './time.js';
