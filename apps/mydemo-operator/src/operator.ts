// The Mydemo operator on @kubets/controller: for each Mydemo a Deployment and a Service it
// owns, an external record kept by a finalizer, and a status with conditions. One reconcile
// brings one Mydemo's world to its spec; it is idempotent, so it is simply run again for
// every change of the Mydemo or of what it owns, and after any error.

import { isNotFound, jsonEqual } from '@kubets/apimachinery';
import { appsV1Resources, type appsv1, type Clientset, coreV1Resources } from '@kubets/clientset';
import {
  type Condition,
  type Controller,
  type ControllerDeps,
  controller,
  createOrUpdate,
  createOrUpdatePermission,
  finalizer,
  finalizerPermission,
  type ObservableCache,
  type ReconcileContext,
  type ReconcileFunc,
  setStatusCondition,
  statusPermission,
  waitForCacheDeletion,
  waitForCacheWrite,
} from '@kubets/controller';
import { PatchType } from '@kubets/rest';
import { type DesiredState, mutateDeployment, mutateService } from './children.ts';
import { crddemoV1 } from './generated/index.ts';
import type { ExternalRecords } from './records.ts';

type Mydemo = crddemoV1.Mydemo;

/** The finalizer that holds a deleted Mydemo until its external record is removed. */
export const finalizerName = 'crddemo.k8s.io/external-record';

/** The image of a Mydemo's pods when its spec names none. */
export const defaultImage = 'nginx:1.25';

/** What the reconciler works with. */
export interface OperatorDeps {
  /** Writes the Mydemos' children and status. */
  readonly clientset: Clientset;
  /**
   * The informer of Mydemos whose cache the controller reads (`ctx.cached()`): each reconcile
   * waits until it has seen the reconcile's own writes to the Mydemo.
   */
  readonly mydemoCache: ObservableCache<Mydemo>;
  /** The registry outside the cluster. */
  readonly records: ExternalRecords;
  /** The image when a Mydemo's spec names none; default {@link defaultImage}. */
  readonly image?: string | undefined;
  /** The time conditions change at; default now. */
  readonly now?: (() => Date) | undefined;
}

/** A field of a Mydemo's spec the operator cannot run, and why. */
export interface SpecProblem {
  /** The field's path, `spec.port`. */
  readonly field: string;
  /** What is wrong with it, naming it. */
  readonly message: string;
}

/**
 * What in a Mydemo's spec cannot be run (none when it can): the validating webhook refuses
 * such a spec, and the reconciler reports one stored before the webhook existed.
 */
export function specProblems(spec: crddemoV1.MydemoSpec | undefined): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const port = spec?.port;
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    problems.push({
      field: 'spec.port',
      message: `spec.port ${port ?? '(unset)'} is outside 1-65535`,
    });
  }
  const replicas = spec?.replicas;
  if (replicas !== undefined && !(Number.isInteger(replicas) && replicas >= 0)) {
    problems.push({
      field: 'spec.replicas',
      message: `spec.replicas ${replicas} is not a whole number ≥ 0`,
    });
  }
  return problems;
}

/** Why a Mydemo's spec cannot be run (its first {@link specProblems}), or `undefined` when it can. */
export function specProblem(spec: crddemoV1.MydemoSpec | undefined): string | undefined {
  return specProblems(spec)[0]?.message;
}

/** `Type=Status (Reason)` of each condition, for log lines. */
export function describeConditions(conditions: readonly Condition[] | undefined): string {
  return (conditions ?? []).map((c) => `${c.type}=${c.status} (${c.reason})`).join(', ');
}

/**
 * The reconciler of Mydemos. It reads the Mydemo from the cache, and before it returns waits
 * until the cache has seen its own writes to the Mydemo (the finalizer, the status): the next
 * reconcile of the same Mydemo, whatever queued it, then starts from them rather than from an
 * older copy that would make it repeat them. Its children are read live by createOrUpdate.
 */
export function mydemoReconciler(deps: OperatorDeps): ReconcileFunc<Mydemo> {
  const { clientset, records } = deps;
  const now = deps.now ?? (() => new Date());

  async function writeStatus(
    mydemo: Mydemo,
    update: (status: crddemoV1.MydemoStatus, conditions: Condition[]) => void,
    ctx: ReconcileContext<Mydemo>,
  ): Promise<Mydemo | undefined> {
    const status = structuredClone(mydemo.status ?? {});
    const conditions: Condition[] = status.conditions ?? [];
    update(status, conditions);
    status.conditions = conditions;
    if (jsonEqual(status, mydemo.status ?? {})) return undefined;
    const { namespace = '', name = '' } = mydemo.metadata ?? {};
    // Through the status subresource: the spec (and metadata.generation) stay as they are.
    const written = await crddemoV1
      .mydemosClient(clientset, namespace)
      .patchStatus(name, PatchType.MergePatch, { status }, { signal: ctx.signal });
    ctx.logger.info('Status updated', {
      observedGeneration: status.observedGeneration,
      conditions: describeConditions(conditions),
    });
    return written;
  }

  // Resolves with the Mydemo as its status write returned it, if it wrote one.
  async function apply(mydemo: Mydemo, ctx: ReconcileContext<Mydemo>): Promise<Mydemo | undefined> {
    const { namespace = '', name = '', uid = '', generation } = mydemo.metadata ?? {};
    const condition = (c: Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>) => ({
      ...c,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    });
    const problem = specProblem(mydemo.spec);
    if (problem !== undefined) {
      // The validating webhook refuses such a spec; one stored before it existed (or where it
      // is not installed) still arrives here and must not be run. Retrying will not help; the
      // next change of the spec is reconciled anyway.
      ctx.logger.warn('Invalid spec', { problem });
      const refused = await writeStatus(
        mydemo,
        (status, conditions) => {
          if (generation !== undefined) status.observedGeneration = generation;
          const message = `invalid spec: ${problem}`;
          setStatusCondition(
            conditions,
            condition({ type: 'Ready', status: 'False', reason: 'InvalidSpec', message }),
            now(),
          );
        },
        ctx,
      );
      // Once per spec: a reconcile that finds the refusal already reported says nothing.
      if (refused !== undefined) ctx.recorder.event(mydemo, 'Warning', 'InvalidSpec', problem);
      return refused;
    }
    const desired: DesiredState = {
      port: mydemo.spec?.port as number,
      replicas: mydemo.spec?.replicas ?? 1,
      image: mydemo.spec?.image || (deps.image ?? defaultImage),
    };

    const deployment: appsv1.Deployment = { metadata: { name, namespace } };
    const deployments = clientset.appsV1().deployments(namespace);
    const deploymentResult = await createOrUpdate(deployments, deployment, (d) =>
      mutateDeployment(d, mydemo, desired),
    );
    if (deploymentResult !== 'unchanged') ctx.logger.info(`Deployment ${deploymentResult}`);

    const services = clientset.coreV1().services(namespace);
    const serviceResult = await createOrUpdate(services, { metadata: { name, namespace } }, (s) =>
      mutateService(s, mydemo, desired),
    );
    if (serviceResult !== 'unchanged') ctx.logger.info(`Service ${serviceResult}`);

    const record = {
      namespace,
      name,
      uid,
      ip: mydemo.spec?.ip ?? '',
      port: desired.port,
      service: `${name}.${namespace}.svc`,
    };
    if (await records.put(record)) {
      ctx.logger.info('External record written', { ip: record.ip, port: record.port });
    }

    const available = deployment.status?.availableReplicas ?? 0;
    const written = await writeStatus(
      mydemo,
      (status, conditions) => {
        if (generation !== undefined) status.observedGeneration = generation;
        status.availableReplicas = available;
        setStatusCondition(
          conditions,
          condition({
            type: 'Ready',
            status: 'True',
            reason: 'Reconciled',
            message: 'the Deployment, the Service and the external record match the spec',
          }),
          now(),
        );
        const enough = available >= desired.replicas;
        setStatusCondition(
          conditions,
          condition({
            type: 'Available',
            status: enough ? 'True' : 'False',
            reason: enough ? 'MinimumReplicasAvailable' : 'ReplicasUnavailable',
            message: `${available}/${desired.replicas} replicas available`,
          }),
          now(),
        );
      },
      ctx,
    );
    // As the sample controller does after each sync that changed something.
    if (written !== undefined) {
      ctx.recorder.event(mydemo, 'Normal', 'Synced', 'Mydemo synced successfully');
    }
    return written;
  }

  // The external record, then the children: the Mydemo goes only once all of it is gone.
  // A cluster's garbage collector would delete the children after the Mydemo; deleting them
  // here makes the cleanup complete where none runs (envtest, the embedded API server).
  async function cleanup(mydemo: Mydemo, ctx: ReconcileContext<Mydemo>): Promise<void> {
    const { namespace = '', name = '', uid } = mydemo.metadata ?? {};
    if (await records.remove(namespace, name)) ctx.logger.info('External record removed');
    const children = [
      ['Deployment', clientset.appsV1().deployments(namespace)],
      ['Service', clientset.coreV1().services(namespace)],
    ] as const;
    for (const [kind, client] of children) {
      try {
        const child = await client.get(name, { signal: ctx.signal });
        const ours = child.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid);
        if (!ours) continue; // someone else's object of the same name
        await client.delete(name, { signal: ctx.signal });
        ctx.logger.info(`${kind} deleted`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    ctx.logger.info('Finalizer removed', { finalizer: finalizerName });
    ctx.recorder.event(mydemo, 'Normal', 'CleanedUp', 'external record and children removed');
  }

  return async ({ namespace, name }, ctx) => {
    const cached = ctx.cached();
    // Gone: nothing left to reconcile (its children go with it).
    if (cached === undefined) return;
    // Owner references and Events need the kind, which list items of a cache may lack.
    const mydemo: Mydemo = { ...cached, apiVersion: 'crddemo.k8s.io/v1', kind: 'Mydemo' };
    const mydemos = crddemoV1.mydemosClient(clientset, namespace);
    let lastWrite: Mydemo | undefined;
    const finalizers = {
      patch: async (n: string, type: PatchType, body: object[]) => {
        lastWrite = await mydemos.patch(n, type, body, { signal: ctx.signal });
        return lastWrite;
      },
    };
    let removedFinalizer = false;
    try {
      const statusWrite = await finalizer(finalizers, mydemo, finalizerName, {
        apply: (m) => apply({ ...m, apiVersion: 'crddemo.k8s.io/v1', kind: 'Mydemo' }, ctx),
        cleanup: async (m) => {
          await cleanup(m, ctx);
          removedFinalizer = true;
          return undefined;
        },
      });
      lastWrite = statusWrite ?? lastWrite;
    } catch (err) {
      // Deleted meanwhile: the write found nothing, and neither will the next reconcile.
      if (isNotFound(err)) return;
      // Anything else, the stop's abort included (the controller knows it for no failure),
      // is thrown on; the next reconcile does what is left.
      throw err;
    }
    if (lastWrite === undefined) return;
    await cacheHasSeen(lastWrite, removedFinalizer, ctx.signal);
    ctx.logger.debug('Cache has seen the writes', { name });
  };

  // The object written last, or, once the last finalizer is off, its deletion: whichever the
  // cache shows first.
  async function cacheHasSeen(
    written: Mydemo,
    mayBeDeleted: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    const { mydemoCache } = deps;
    if (!mayBeDeleted) return waitForCacheWrite(mydemoCache, written, { signal });
    const settled = new AbortController();
    const both = AbortSignal.any([signal, settled.signal]);
    try {
      await Promise.any([
        waitForCacheWrite(mydemoCache, written, { signal: both }),
        waitForCacheDeletion(mydemoCache, written, { signal: both }),
      ]);
    } catch (err) {
      throw err instanceof AggregateError ? err.errors[0] : err;
    } finally {
      settled.abort();
    }
  }
}

/** Settings of {@link addMydemoController} besides the reconciler's. */
export interface ControllerSettings extends Omit<OperatorDeps, 'clientset' | 'mydemoCache'> {
  /** How many Mydemos are reconciled at once. Default 1. */
  readonly maxConcurrentReconciles?: number | undefined;
}

/**
 * Adds the Mydemo controller to `mgr` (a Manager, or the parts of one): reconciles each
 * Mydemo, and the Mydemo owning a Deployment or Service that changed or was deleted.
 */
export function addMydemoController(
  mgr: ControllerDeps & { readonly clientset: Clientset },
  settings: ControllerSettings,
): Controller<Mydemo> {
  const mydemoCache = mgr.informers.forResource(crddemoV1.mydemosResource).informer();
  return (
    controller(mgr)
      .named('mydemo')
      .for(crddemoV1.mydemosResource)
      .owns(appsV1Resources.deployments)
      .owns(coreV1Resources.services)
      // What the reconciler writes; the reads of for/owns, the Events and the Lease are derived.
      .rbac(
        finalizerPermission(crddemoV1.mydemosResource),
        statusPermission(crddemoV1.mydemosResource, ['patch']),
        createOrUpdatePermission(appsV1Resources.deployments),
        createOrUpdatePermission(coreV1Resources.services),
        // The cleanup deletes the children (no garbage collector is assumed).
        { resource: appsV1Resources.deployments, verbs: ['delete'] },
        { resource: coreV1Resources.services, verbs: ['delete'] },
      )
      .withOptions({ maxConcurrentReconciles: settings.maxConcurrentReconciles ?? 1 })
      .complete(mydemoReconciler({ ...settings, clientset: mgr.clientset, mydemoCache }))
  );
}
