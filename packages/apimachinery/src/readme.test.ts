// The README's example (between the readme markers), run as a test: scripts/readme-examples.mjs
// checks that packages/apimachinery/README.md shows this code verbatim, with
// `from './index.js'` written as `from '@kubets/apimachinery'`.

// readme:start
import {
  getName,
  isNotFound,
  type KubeObject,
  labelSelectorAsSelector,
  parseResourceArg,
  parseSelector,
  StatusError,
} from './index.js';

// kubectl-style resource arguments
const { gvr } = parseResourceArg('deployments.v1.apps');
// → { group: 'apps', version: 'v1', resource: 'deployments' }

// label selectors: parse once, match many
const selector = parseSelector('app=web,tier in (frontend,backend),!canary');
const pod: KubeObject = { metadata: { name: 'web-1', labels: { app: 'web', tier: 'frontend' } } };
const matches = selector.matches(pod.metadata?.labels); // true
const canonical = selector.toString(); // 'app=web,!canary,tier in (backend,frontend)'

// a Deployment's spec.selector: null selects nothing, {} selects everything
const web = labelSelectorAsSelector({ matchLabels: { app: 'web' } });
const webMatches = web.matches({ app: 'web' }); // true
const name = getName(pod); // 'web-1'

// errors carry the server's Status: test them by reason (the HTTP code is the fallback)
const err = new StatusError({ status: 'Failure', reason: 'NotFound', code: 404 });
const notFound = isNotFound(err); // true

// readme:end
import { expect, it } from 'vitest'; // after the example, so sorting imports keeps it out

it('runs the README example', () => {
  expect(gvr).toEqual({ group: 'apps', version: 'v1', resource: 'deployments' });
  expect(matches).toBe(true);
  expect(canonical).toBe('app=web,!canary,tier in (backend,frontend)');
  expect(selector.matches({ app: 'web', tier: 'frontend', canary: 'yes' })).toBe(false);
  expect(webMatches).toBe(true);
  expect(web.matches({ app: 'db' })).toBe(false);
  expect(labelSelectorAsSelector(null).matches({ app: 'web' })).toBe(false);
  expect(labelSelectorAsSelector({}).matches({})).toBe(true);
  expect(name).toBe('web-1');
  expect(notFound).toBe(true);
});
