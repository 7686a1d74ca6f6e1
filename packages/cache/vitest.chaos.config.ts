import { chaosTestConfig } from '../../vitest.shared.js';

export default chaosTestConfig();
