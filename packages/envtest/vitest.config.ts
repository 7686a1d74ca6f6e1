import { mergeConfig } from 'vitest/config';
import { unitTestConfig } from '../../vitest.shared.js';

// The README's example starts the real etcd and kube-apiserver: it runs with the e2e tests.
export default mergeConfig(unitTestConfig(), { test: { exclude: ['src/readme.test.ts'] } });
