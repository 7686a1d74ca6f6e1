import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEnvtest } from '@kubets/envtest';
import { expect, it } from 'vitest';
import { startApiServer } from '../../src/server.js';
import { compare, type DiffTarget, renderReport, runSteps } from './harness.js';
import { STEPS } from './steps.js';

const assets = process.env.KUBEBUILDER_ASSETS ?? join(homedir(), '.cache/kubets/assets');
const kubectl = {
  // Built from kube-apiserver's source by scripts/provision-envtest.sh.
  '1.20': process.env.KUBETS_KUBECTL_1_20 ?? join(assets, 'kubectl-1.20'),
  '1.34': process.env.KUBETS_KUBECTL ?? join(assets, 'kubectl-1.34'),
};

/**
 * Runs every step of `steps.ts` against kube-apiserver 1.20 (envtest) and the in-memory server,
 * prints the same/different counts per area and each difference, and writes the report to
 * `$KUBETS_DIFF_REPORT` (default `differential-report.txt` in the temp dir).
 */
it('compares the in-memory server with kube-apiserver 1.20 step by step', async () => {
  for (const binary of Object.values(kubectl)) {
    if (!existsSync(binary)) throw new Error(`no kubectl at ${binary}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'kubets-diff-'));
  const env = await startEnvtest();
  const ours = await startApiServer();
  try {
    const real: DiffTarget = {
      host: env.host,
      tls: { ca: env.tls.caData, cert: env.tls.certData, key: env.tls.keyData },
      kubeconfigPath: env.kubeconfigPath,
      cacheDir: join(dir, 'real-cache'),
    };
    const embedded: DiffTarget = {
      host: ours.host,
      kubeconfigPath: ours.kubeconfigPath,
      cacheDir: join(dir, 'ours-cache'),
    };
    const realAnswers = await runSteps(STEPS, real, kubectl);
    const ourAnswers = await runSteps(STEPS, embedded, kubectl);
    const result = compare(STEPS, realAnswers, ourAnswers);
    const report = renderReport(result);
    const out = process.env.KUBETS_DIFF_REPORT ?? join(tmpdir(), 'differential-report.txt');
    await writeFile(out, `${report}\n`);
    // Both servers' normalised answers, step by step, for a closer look.
    const answers = STEPS.map((s) => ({
      id: s.id,
      real: realAnswers.get(s.id),
      ours: ourAnswers.get(s.id),
    }));
    await writeFile(out.replace(/(\.txt)?$/, '.json'), JSON.stringify(answers, null, 1));
    process.stdout.write(`${report}\n\nreport written to ${out}\n`);
    // Every step ran on both servers.
    expect(realAnswers.size).toBe(new Set(STEPS.map((s) => s.id)).size);
    expect(ourAnswers.size).toBe(realAnswers.size);
  } finally {
    await ours.stop();
    await env.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
