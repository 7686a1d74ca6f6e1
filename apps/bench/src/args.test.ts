import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.ts';
import { defaultVariants } from './stats.ts';

describe('parseBenchArgs', () => {
  it('defaults to 10,000 Pods, 3 rounds, every HTTP/1.1 variant, envtest, and writing the docs', () => {
    const a = parseBenchArgs([]);
    expect(a).toMatchObject({ pods: 10_000, rounds: 3, kubeconfig: undefined, docs: true });
    expect(a.variants).toEqual([...defaultVariants]);
    expect(a.variants).not.toContain('kubets-h2');
    expect(a.variants).not.toContain('kubets-h2-handler');
  });

  it('reads the flags, ignoring the -- pnpm passes on', () => {
    const a = parseBenchArgs(['--', '--pods', '1000', '--rounds=1', '--kubeconfig', '/k']);
    expect(a).toMatchObject({ pods: 1000, rounds: 1, kubeconfig: '/k', docs: false });
    expect(parseBenchArgs(['--count', '100_000']).pods).toBe(100_000);
    expect(parseBenchArgs(['--pods', '10', '--docs']).docs).toBe(true);
    expect(parseBenchArgs(['--no-docs']).docs).toBe(false);
    expect(parseBenchArgs([]).updatesPerPod).toBe(1);
    expect(parseBenchArgs([]).installSize).toBe(true);
    expect(parseBenchArgs(['--startup-only', '--no-install-size'])).toMatchObject({
      startupOnly: true,
      installSize: false,
    });
    expect(parseBenchArgs(['--updates-per-pod', '3']).updatesPerPod).toBe(3);
    expect(parseBenchArgs(['--variants', 'kubets,client-node']).variants).toEqual([
      'kubets',
      'client-node',
    ]);
    expect(parseBenchArgs(['--variants', 'floor, kubets-handler,client-go']).variants).toEqual([
      'floor',
      'kubets-handler',
      'client-go',
    ]);
    expect(parseBenchArgs(['--variants', 'kubets-h2,kubets-h2-handler']).variants).toEqual([
      'kubets-h2',
      'kubets-h2-handler',
    ]);
  });

  it('rejects bad values', () => {
    expect(() => parseBenchArgs(['--pods', '0'])).toThrow(/--pods/);
    expect(() => parseBenchArgs(['--updates-per-pod', '1.5'])).toThrow(/--updates-per-pod/);
    expect(() => parseBenchArgs(['--variants', 'client-go-1.36'])).toThrow(
      /unknown variant client-go-1\.36/,
    );
    expect(() => parseBenchArgs(['--nope'])).toThrow();
  });
});
