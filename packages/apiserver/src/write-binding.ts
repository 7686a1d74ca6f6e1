import type { Entry } from './object-entry.js';
import { meta, timestamp } from './object-meta.js';
import { isObject, type JsonObject, type JsonValue } from './patch.js';
import { badRequest, conflict, invalid } from './status.js';
import type { Target } from './target.js';
import type { VersionedStore } from './versioned-store.js';

/**
 * POST `pods/<name>/binding`, as the scheduler binds a pod: sets `spec.nodeName` from the
 * Binding's target, merges its annotations, and marks the pod `PodScheduled`. A pod that is
 * already on a node, or being deleted, is a 409.
 */
export function bindPod(
  store: VersionedStore,
  target: Target,
  name: string,
  binding: JsonObject,
  dryRun: boolean,
): Entry {
  const bindingMd = isObject(binding.metadata) ? binding.metadata : {};
  if (bindingMd.name !== undefined && bindingMd.name !== name) {
    throw badRequest('name in URL does not match name in Binding object');
  }
  const to = isObject(binding.target) ? binding.target : {};
  const kind = typeof to.kind === 'string' ? to.kind : '';
  if (kind !== '' && kind !== 'Node') {
    const message = `Unsupported value: ${JSON.stringify(kind)}: supported values: "Node", "<empty>"`;
    throw invalid('Binding', name, [
      { reason: 'FieldValueNotSupported', message, field: 'target.kind' },
    ]);
  }
  const nodeName = typeof to.name === 'string' ? to.name : '';
  const prev = store.get(target, name);
  const pod = prev.obj;
  const md = meta(pod);
  const spec = isObject(pod.spec) ? pod.spec : {};
  const refuse = (why: string) => conflict('pods/binding', name, why);
  if (md.deletionTimestamp !== undefined) {
    throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
  }
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
    throw refuse(`pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
  }
  const status = isObject(pod.status) ? pod.status : {};
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(
    (c) => !(isObject(c) && c.type === 'PodScheduled'),
  );
  const scheduled: JsonValue = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: timestamp(),
  };
  const annotations = isObject(bindingMd.annotations) ? bindingMd.annotations : undefined;
  const next: JsonObject = {
    ...pod,
    metadata: {
      ...md,
      ...(annotations
        ? { annotations: { ...(isObject(md.annotations) ? md.annotations : {}), ...annotations } }
        : {}),
    },
    spec: { ...spec, nodeName },
    status: { ...status, conditions: [...conditions, scheduled] },
  };
  return store.commit(target, prev, next, { manager: '', dryRun });
}
