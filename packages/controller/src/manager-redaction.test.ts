// Issue 37: a Manager built from a copy of a config (`{ ...config, qps: -1 }`), and copies of
// the Manager, print no credential. (`mgr.config` is the config given, as controller-runtime's
// GetConfig: a hand-written one prints what it holds.)
import { copyConfig } from '@kubets/rest';
import { noSecretAssertion, secretConfig } from '@kubets/test-utils';
import { describe, it } from 'vitest';
import { Manager } from './manager.js';

const expectNoSecret = noSecretAssertion();

describe('a Manager prints no credential', () => {
  it.each<[string, () => ConstructorParameters<typeof Manager>[0]]>([
    ['a spread copy of a sealed config', () => ({ ...copyConfig(secretConfig()), qps: -1 })],
    ['Object.assign of a sealed config', () => Object.assign({}, copyConfig(secretConfig()))],
  ])('built from %s', (_, config) => {
    const manager = new Manager(config());
    expectNoSecret(manager, 'Manager');
    expectNoSecret(manager.config, 'Manager.config');
    expectNoSecret({ ...manager }, 'a spread Manager');
    expectNoSecret({ ...manager.config }, 'a spread of Manager.config');
  });
});
