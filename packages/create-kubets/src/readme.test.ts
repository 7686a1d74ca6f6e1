// The README's example, run as a test (scripts/readme-examples.mjs checks that README.md
// shows the code between the readme markers).
import { readdir, rm } from 'node:fs/promises';
import { afterAll, expect, it, vi } from 'vitest';

const logged: unknown[][] = [];
vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args));

// readme:start
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createProject, ScaffoldError } from './index.js';

const folder = path.join(await mkdtemp(path.join(tmpdir(), 'projects-')), 'shop-operator');
const written = await createProject(folder, {
  group: 'shop.example.org',
  kind: 'Order',
  version: 'v1',
});
console.log(written.includes('src/api.ts')); // true: the Order CRD, declared with @kubets/crd

try {
  await createProject(folder, { kind: 'order_item' }); // checked before anything is written
} catch (err) {
  if (err instanceof ScaffoldError) {
    for (const problem of err.problems) console.log(problem.option, problem.message);
    // kind spec.names.kind: Invalid value: "order_item": may have mixed case, but should ...
    // directory /tmp/projects-.../shop-operator exists and is not empty (.dockerignore, ...
  }
}
// readme:end

afterAll(() => rm(path.dirname(folder), { recursive: true, force: true }));

it('writes the project, then refuses bad names and the folder it filled', async () => {
  expect(await readdir(folder)).toContain('Dockerfile');
  expect(logged[0]).toEqual([true]);
  expect(logged.slice(1).map((args) => args[0])).toEqual(['kind', 'directory']);
  expect(logged[1]?.[1]).toMatch(
    /^spec\.names\.kind: Invalid value: "order_item": may have mixed case/,
  );
  expect(logged[2]?.[1]).toMatch(/shop-operator exists and is not empty \(\.dockerignore, /);
});
