// What the packages' tests share. Shipped as TypeScript source (no build step), only
// erasable syntax. Hostile path input is the `./hostile-segments` subpath.
export * from './api-server-per-test.js';
export * from './chaos-proxy.js';
export * from './cleanups.js';
export * from './custom-resource.js';
export * from './envtest-suite.js';
export * from './fakes.js';
export * from './informer-events.js';
export * from './kubeconfig.js';
export * from './printed.js';
export * from './readme-harness.js';
export * from './redaction.js';
export * from './runtime.js';
export * from './seeded-random.js';
export * from './stub-server.js';
export * from './wait.js';
export * from './workloads.js';
