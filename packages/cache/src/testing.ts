// Settings for tests and test environments, kept out of the main entry: what a production
// informer must never need.
export { setCacheMutationDetectorDefault } from './mutation-detector.js';
export { setMinWatchTimeoutFloorSeconds } from './watch-timeout-floor.js';
