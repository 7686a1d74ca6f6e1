// The operator's walk-through, played on the embedded API server when no cluster is
// configured (or with --demo): the CRD is installed, then example-mydemo is created and gets
// its Deployment, Service, external record and status; the demo plays the deployment
// controller (which the embedded server does not run) so the Mydemo becomes Available; the
// port changes; the Deployment is deleted and comes back; and example-mydemo is deleted, its
// finalizer removing the external record first. The webhooks: a Mydemo with an invalid port
// stored before they are installed is refused in its status, then they are installed (the
// embedded API server calls them as kube-apiserver does): example-mydemo gets the default
// image, a second invalid Mydemo is refused at admission, and a v1alpha1 Mydemo is read at
// v1 through the conversion webhook. Each step waits for the operator's log line; the metrics
// are printed last.

import { readFileSync } from 'node:fs';
import { isNotFound } from '@kubets/apimachinery';
import type { apiextensionsv1 } from '@kubets/clientset';
import { PatchType } from '@kubets/rest';
import type { AdmissionRegistration } from '@kubets/webhook';
import { type DemoScenario, errorMessage, sleep } from '@kubets-apps/shared';
import { parse } from 'yaml';
import { crddemoV1, crddemoV1alpha1 } from './generated/index.ts';
import type { ExternalRecords } from './records.ts';
import { installLocalWebhooks } from './webhooks.ts';

const appDir = new URL('..', import.meta.url);

/** A YAML file of the app (`crd/mydemo.yaml`, `example/example-mydemo.yaml`), parsed. */
export function readManifest<T>(path: string): T {
  return parse(readFileSync(new URL(path, appDir), 'utf8')) as T;
}

/** A log line of the operator about `default/<name>` saying `message`. */
function about(name: string, message: string): RegExp {
  const text = message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `${text}.*namespace="default" name="${name}"|namespace="default" name="${name}".*${text}`,
  );
}

/** The operator's webhook server as the demo installs it. */
export interface DemoWebhooks {
  /** The CA that signed the server's certificate (PEM). */
  readonly caPem: string;
  /** The server's base URL, once it listens. */
  url(): Promise<string>;
  /** What the operator registered on it. */
  registrations(): readonly AdmissionRegistration[];
}

/** The walk-through, writing and reading the external records in `records`. */
export function mydemoOperatorDemo(
  records: ExternalRecords,
  webhooks: DemoWebhooks | undefined,
): DemoScenario {
  return {
    // Before the operator starts: its informer's first list needs the CRD.
    async setup({ clientset, step }) {
      const crd = readManifest<apiextensionsv1.CustomResourceDefinition>('crd/mydemo.yaml');
      step(`creating the CustomResourceDefinition ${crd.metadata?.name} (crd/mydemo.yaml)`);
      await clientset.apiextensionsV1().customResourceDefinitions().create(crd);
    },

    async run({ clientset, output, signal, step, waitFor }) {
      const mydemos = crddemoV1.mydemosClient(clientset, 'default');
      const deployments = clientset.appsV1().deployments('default');
      const showRecord = async (name: string): Promise<void> => {
        const record = await records.get('default', name);
        step(`external record of default/${name}: ${record ? JSON.stringify(record) : 'none'}`);
      };
      await waitFor('Starting workers');

      step('creating Mydemo default/invalid-mydemo with port 70000, before the webhooks');
      let since = output.mark();
      await mydemos.create({
        apiVersion: 'crddemo.k8s.io/v1',
        kind: 'Mydemo',
        metadata: { name: 'invalid-mydemo' },
        spec: { ip: '127.0.0.1', port: 70_000 },
      });
      await waitFor(about('invalid-mydemo', 'Ready=False (InvalidSpec)'), since);

      if (webhooks) {
        const url = await webhooks.url();
        step(`installing the webhook configurations and the CRD's conversion webhook (${url})`);
        await installLocalWebhooks(clientset, webhooks.registrations(), {
          url,
          caPem: webhooks.caPem,
        });
      }

      step('creating Mydemo default/example-mydemo (example/example-mydemo.yaml)');
      since = output.mark();
      const created = await mydemos.create(
        readManifest<crddemoV1.Mydemo>('example/example-mydemo.yaml'),
      );
      step(
        `default/example-mydemo was created with the image ${created.spec?.image ?? '(none: no defaulting webhook)'}`,
      );
      await waitFor(about('example-mydemo', 'Deployment created'), since);
      await waitFor(about('example-mydemo', 'Service created'), since);
      await waitFor(about('example-mydemo', 'External record written'), since);
      await waitFor(about('example-mydemo', 'Ready=True (Reconciled)'), since);
      await showRecord('example-mydemo');

      step(
        'playing the deployment controller: 1 of 1 replicas of default/example-mydemo available',
      );
      since = output.mark();
      const deployment = await deployments.get('example-mydemo');
      await deployments.updateStatus({
        ...deployment,
        status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
      });
      await waitFor(about('example-mydemo', 'Available=True (MinimumReplicasAvailable)'), since);

      step('changing the port of default/example-mydemo to 9090');
      since = output.mark();
      await mydemos.patch('example-mydemo', PatchType.MergePatch, { spec: { port: 9090 } });
      await waitFor(about('example-mydemo', 'Deployment updated'), since);
      await waitFor(about('example-mydemo', 'Service updated'), since);
      await waitFor(about('example-mydemo', 'External record written'), since);
      await waitFor(about('example-mydemo', 'observedGeneration=2'), since);
      await showRecord('example-mydemo');

      step('deleting Deployment default/example-mydemo behind the operator’s back');
      since = output.mark();
      await deployments.delete('example-mydemo');
      await waitFor(about('example-mydemo', 'Deployment created'), since);

      // Without webhooks a v1alpha1 Mydemo is not converted.
      if (webhooks) {
        step('creating Mydemo default/refused-mydemo with port 70000');
        const refusal = await mydemos
          .create({
            apiVersion: 'crddemo.k8s.io/v1',
            kind: 'Mydemo',
            metadata: { name: 'refused-mydemo' },
            spec: { ip: '127.0.0.1', port: 70_000 },
          })
          .then(
            () => 'created',
            (err: unknown) => errorMessage(err),
          );
        step(`refused: ${refusal}`);

        step('creating Mydemo default/alpha-mydemo at v1alpha1 (spec.listen)');
        since = output.mark();
        await crddemoV1alpha1.mydemosClient(clientset, 'default').create({
          apiVersion: 'crddemo.k8s.io/v1alpha1',
          kind: 'Mydemo',
          metadata: { name: 'alpha-mydemo' },
          spec: { listen: { ip: '127.0.0.1', port: 8081 } },
        });
        const atV1 = await mydemos.get('alpha-mydemo');
        step(`default/alpha-mydemo read at v1: spec ${JSON.stringify(atV1.spec)}`);
        await waitFor(about('alpha-mydemo', 'Ready=True (Reconciled)'), since);
      }

      step(
        'deleting Mydemo default/example-mydemo (its finalizer removes the external record first)',
      );
      since = output.mark();
      await mydemos.delete('example-mydemo');
      await waitFor(about('example-mydemo', 'External record removed'), since);
      await waitFor(about('example-mydemo', 'Finalizer removed'), since);
      for (let attempt = 0; ; attempt++) {
        const gone = await mydemos.get('example-mydemo').then(
          () => false,
          (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)),
        );
        if (gone) break;
        if (attempt === 50) throw new Error('default/example-mydemo was not deleted');
        await sleep(100, signal);
      }
      await showRecord('example-mydemo');
      step(`Mydemos left: ${(await mydemos.list()).items.map((m) => m.metadata?.name).join(', ')}`);
      // The finalizer comes off invalid-mydemo although its spec is invalid: the validating
      // webhook lets through an update that leaves the spec as it was.
      if (webhooks) await mydemos.delete('alpha-mydemo');
      await mydemos.delete('invalid-mydemo');
      if (webhooks) await waitFor(about('alpha-mydemo', 'Finalizer removed'), since);
      await waitFor(about('invalid-mydemo', 'Finalizer removed'), since);

      const served = await waitFor(/Serving metrics server/);
      const port = /"port":(\d+)/.exec(served)?.[1];
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal })).text();
      const reconciles = metrics
        .split('\n')
        .filter((line) => line.startsWith('controller_runtime_reconcile_total{'));
      step(`metrics (http://127.0.0.1:${port}/metrics): ${reconciles.join('; ')}`);
    },
  };
}
