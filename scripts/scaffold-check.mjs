#!/usr/bin/env node
// `npm create kubets` from the packed tarballs, as a new user would run it, in a temp folder:
//
//   1. builds the packages (turbo, cached) unless --no-build, and packs every publishable one
//      (scripts/pack-tarballs.mjs);
//   2. serves the @kubets tarballs from a registry on loopback (scripts/local-registry.mjs) that
//      npm uses for the @kubets scope only: no @kubets package can come from anywhere else;
//   3. runs the packed create-kubets (`npm exec --package=<its tarball> -- create-kubets`, what
//      `npm create kubets` runs) to scaffold a project, and checks that it refuses an invalid
//      group and the now non-empty folder without writing anything;
//   4. installs the project with `npm install --prefer-offline`: @kubets packages from the
//      tarballs, third-party ones from npm's cache (the registry only for what it lacks), and
//      checks that each @kubets package installed is the packed one, once;
//   5. in the project: `npm run typecheck`, `npm test` (unit tests on the in-memory API server),
//      `npm run manifests`, `npm run build`, and `npm run test:e2e` (envtest) when
//      KUBEBUILDER_ASSETS is set.
//
//   node scripts/scaffold-check.mjs [--no-build]
//
// Exits non-zero naming the step that failed (with the tail of its output). KEEP_TMP=1 keeps
// the temp folder.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalRegistry } from './local-registry.mjs';
import { packTarballs } from './pack-tarballs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);
const log = (message) => console.log(`scaffold-check: [${seconds()}s] ${message}`);
class ScaffoldCheckError extends Error {}
const fail = (message) => {
  throw new ScaffoldCheckError(message);
};

// The project the check creates: names that differ from the defaults, so the flags are used.
const project = { name: 'shop-operator', group: 'shop.example.org', kind: 'Order', version: 'v1' };

try {
  await main();
} catch (err) {
  if (!(err instanceof ScaffoldCheckError)) throw err;
  console.error(`scaffold-check: FAIL: ${err.message}`);
  process.exitCode = 1;
}

async function main() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'kubets-scaffold-check.'));
  if (tmp.startsWith(`${root}${path.sep}`)) fail(`temp dir ${tmp} is inside the workspace`);
  let registry;
  try {
    const build = !process.argv.includes('--no-build');
    log(`packing the packages${build ? ', after a build (turbo)' : ''}`);
    let packages;
    try {
      packages = packTarballs(path.join(tmp, 'tarballs'), { build });
    } catch (err) {
      fail(err.message);
    }
    const createKubets = packages.find((p) => p.name === 'create-kubets');
    if (!createKubets) fail('create-kubets is not among the packed packages');
    registry = await startLocalRegistry(path.join(tmp, 'tarballs'));
    log(`${packages.length} tarballs; @kubets packages served at ${registry.url}`);

    const env = {
      ...process.env,
      'npm_config_@kubets:registry': registry.url,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_loglevel: 'error',
    };
    const work = path.join(tmp, 'work');
    const dir = path.join(work, project.name);
    mkdirSync(work);
    let stepNumber = 0;
    /** Runs one step; resolves with its output; fails with its tail unless it exits `expect`. */
    const step = async (what, command, args, { cwd = dir, expect = 0 } = {}) => {
      const logFile = path.join(tmp, `step-${++stepNumber}.log`);
      log(what);
      const { code, output } = await run(command, args, { cwd, env });
      writeFileSync(logFile, output);
      if (code !== expect) {
        const tail = output.trimEnd().split('\n').slice(-40).join('\n');
        fail(`${what}: exit ${code}, expected ${expect} (${logFile}):\n${tail}`);
      }
      return output;
    };
    const createKubetsArgs = [
      'exec',
      '--yes',
      `--package=${createKubets.file}`,
      '--',
      'create-kubets',
    ];

    await step(
      `npm create kubets: ${project.name} --group ${project.group} --kind ${project.kind} --version ${project.version}`,
      'npm',
      [
        ...createKubetsArgs,
        project.name,
        '--group',
        project.group,
        '--kind',
        project.kind,
        '--version',
        project.version,
      ],
      { cwd: work },
    );
    const files = listFiles(dir);
    checkManifest(dir, createKubets.version, packages);

    const refusedGroup = await step(
      'refused: an invalid group',
      'npm',
      [...createKubetsArgs, 'other-operator', '--group', 'shop'],
      { cwd: work, expect: 1 },
    );
    expectText(
      refusedGroup,
      '--group: spec.group: Invalid value: "shop": should be a domain with at least one dot',
    );
    const refusedFolder = await step(
      'refused: the folder it filled',
      'npm',
      [...createKubetsArgs, project.name],
      { cwd: work, expect: 1 },
    );
    expectText(refusedFolder, `--directory: ${dir} exists and is not empty`);
    if (readdirSync(work).join() !== project.name) fail(`a refused run wrote into ${work}`);
    if (listFiles(dir).join() !== files.join()) fail(`a refused run changed ${dir}`);

    await step('npm install --prefer-offline (@kubets from the tarballs)', 'npm', [
      'install',
      '--prefer-offline',
    ]);
    checkInstalled(dir, packages);

    await step('npm run typecheck', 'npm', ['run', 'typecheck']);
    const unitReport = path.join(tmp, 'unit.json');
    await step('npm test', 'npm', ['test', '--', ...jsonReporter(unitReport)]);
    const unit = counts(unitReport, 'npm test');

    await step('npm run manifests', 'npm', ['run', 'manifests']);
    const config = listFiles(path.join(dir, 'config'));
    const crdFile = `crds/orders.${project.group}.yaml`;
    for (const file of [
      'namespace.yaml',
      crdFile,
      'rbac.yaml',
      'deployment.yaml',
      'kustomization.yaml',
    ]) {
      if (!config.includes(file))
        fail(`npm run manifests wrote no config/${file} (wrote ${config.join(', ')})`);
    }
    await step('npm run build', 'npm', ['run', 'build']);
    if (!listFiles(path.join(dir, 'dist')).includes('main.js'))
      fail('npm run build wrote no dist/main.js');

    let e2e = 'skipped: KUBEBUILDER_ASSETS is not set';
    if (process.env.KUBEBUILDER_ASSETS) {
      const e2eReport = path.join(tmp, 'e2e.json');
      await step('npm run test:e2e (envtest)', 'npm', [
        'run',
        'test:e2e',
        '--',
        ...jsonReporter(e2eReport),
      ]);
      const result = counts(e2eReport, 'npm run test:e2e');
      e2e = `${result.passed} passed`;
    } else {
      log('npm run test:e2e skipped: KUBEBUILDER_ASSETS is not set');
    }

    log(
      `OK: ${packages.length} tarballs; project ${project.name} (${files.length} files) scaffolded by the packed create-kubets, 2 invalid runs refused; installed from the tarballs (${packages.filter((p) => p.name.startsWith('@kubets/')).length} @kubets packages served); typecheck; unit tests ${unit.passed} passed; manifests ${config.length} files; build; e2e ${e2e}`,
    );
  } finally {
    await registry?.stop();
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: the script's own switch, read by no turbo task
    if (process.env.KEEP_TMP === '1') console.log(`scaffold-check: keeping ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

/** Runs `command`; resolves with its exit code and its output (stdout and stderr, interleaved). */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Every file under `dir` (relative, sorted), none when it does not exist; node_modules left out. */
function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter((f) => !f.split(path.sep).includes('node_modules'))
    .sort();
}

function expectText(output, text) {
  if (!output.includes(text))
    fail(`expected the output to say ${JSON.stringify(text)}; it said:\n${output}`);
}

/** The new package.json asks for each @kubets package at create-kubets' own version. */
function checkManifest(dir, version, packages) {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const wanted = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
    ([name]) => name.startsWith('@kubets/'),
  );
  if (wanted.length === 0) fail('the new package.json names no @kubets package');
  for (const [name, range] of wanted) {
    if (range !== `^${version}`)
      fail(`the new package.json asks for ${name}@${range}, expected ^${version}`);
    if (!packages.some((p) => p.name === name))
      fail(`the new package.json asks for ${name}, which is not packed`);
  }
}

/** Each @kubets package installed is the packed one (its version), and only one copy of it. */
function checkInstalled(dir, packages) {
  const modules = path.join(dir, 'node_modules');
  const copies = readdirSync(modules, { recursive: true }).filter((f) =>
    /(^|\/)node_modules\/@kubets\/[^/]+\/package\.json$/.test(`node_modules/${f}`),
  );
  const seen = new Map();
  for (const file of copies) {
    const manifest = JSON.parse(readFileSync(path.join(modules, file), 'utf8'));
    const packed = packages.find((p) => p.name === manifest.name);
    if (!packed) fail(`${manifest.name} was installed, but it is not a packed package`);
    if (manifest.version !== packed.version)
      fail(`${manifest.name}@${manifest.version} was installed, not the packed ${packed.version}`);
    if (seen.has(manifest.name))
      fail(`two copies of ${manifest.name}: ${seen.get(manifest.name)} and ${file}`);
    seen.set(manifest.name, file);
  }
  if (seen.size === 0) fail('no @kubets package was installed');
  log(`${seen.size} @kubets packages installed, each the packed one, once`);
}

/** vitest arguments that also write its results as JSON to `file`. */
function jsonReporter(file) {
  return ['--reporter=default', '--reporter=json', `--outputFile.json=${file}`];
}

/** The passed and failed test counts of a vitest JSON report; fails when nothing ran. */
function counts(file, what) {
  if (!existsSync(file)) fail(`${what} wrote no results to ${file}`);
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const result = { passed: report.numPassedTests, failed: report.numFailedTests };
  if (result.failed > 0 || result.passed === 0)
    fail(`${what}: ${result.passed} passed, ${result.failed} failed`);
  log(`${what}: ${result.passed} passed, ${result.failed} failed`);
  return result;
}
