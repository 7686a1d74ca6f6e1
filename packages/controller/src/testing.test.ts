import type { corev1 } from '@kubets/clientset';
import { configMapOf, MemoryLogger } from '@kubets/test-utils';
import { describe, expect, it } from 'vitest';
import type { ReconcileFunc } from './index.js';
import { listerOf, newTestContext } from './testing.js';

// A reconciler as a user would unit-test it: no server, no manager.
const countKeys: ReconcileFunc<corev1.ConfigMap> = (_request, ctx) => {
  const cm = ctx.cached();
  if (cm === undefined) return { requeueAfterMs: 60_000 };
  ctx.logger.info('keys', { count: Object.keys(cm.data ?? {}).length });
  return undefined;
};

describe('newTestContext', () => {
  const cm = configMapOf('settings', { a: '1', b: '2' }, { namespace: 'default' });

  it('hands the reconciler the objects given, through cached() and the lister', async () => {
    const logger = new MemoryLogger();
    const ctx = newTestContext<corev1.ConfigMap>(
      { namespace: 'default', name: 'settings' },
      { objects: [cm], logger },
    );
    expect(await countKeys({ namespace: 'default', name: 'settings' }, ctx)).toBeUndefined();
    expect(logger.lines).toEqual([{ level: 'info', message: 'keys', fields: { count: 2 } }]);
    expect(ctx.lister.byNamespace('default').list()).toEqual([cm]);
    expect(ctx.controller).toBe('test');
    expect(ctx.signal.aborted).toBe(false);
  });

  it('cached() is undefined for an object the cache does not hold', async () => {
    const request = { namespace: 'other', name: 'settings' };
    const ctx = newTestContext<corev1.ConfigMap>(request, { objects: [cm] });
    expect(ctx.cached()).toBeUndefined();
    expect(await countKeys(request, ctx)).toEqual({ requeueAfterMs: 60_000 });
  });

  it('listerOf finds cluster-scoped objects by name and throws NotFound for others', () => {
    const lister = listerOf([{ metadata: { name: 'node-1' } }], { group: '', resource: 'nodes' });
    expect(lister.get('node-1')).toEqual({ metadata: { name: 'node-1' } });
    expect(() => lister.get('node-2')).toThrow(/nodes "node-2" not found/);
  });
});
