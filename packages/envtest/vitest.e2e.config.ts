import { mergeConfig } from 'vitest/config';
import { e2eTestConfig } from '../../vitest.shared.js';

export default mergeConfig(e2eTestConfig(), { test: { include: ['src/readme.test.ts'] } });
