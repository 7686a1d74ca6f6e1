import { e2eTestConfig } from '../../vitest.shared.js';

export default e2eTestConfig();
