// The walk-through of seed 003, played on the embedded API server when no cluster is
// configured: the controller starts before the CRD exists (its list fails and is retried),
// then the CRD is created, then example-mydemo is created, its port changed to 9090, a Mydemo
// with an invalid port is created, and example-mydemo is deleted — each step waiting for the
// controller's answer. The CRD and the example are read from crd/ and example/, the files a
// user applies with kubectl.

import { readFileSync } from 'node:fs';
import type { apiextensionsv1 } from '@kubets/clientset';
import { PatchType } from '@kubets/rest';
import { type DemoScenario, sleep } from '@kubets-apps/shared';
import { parse } from 'yaml';
import { crddemoV1 } from './generated/index.ts';

const appDir = new URL('..', import.meta.url);

/** A YAML file of the app (`crd/mydemo.yaml`, `example/example-mydemo.yaml`), parsed. */
export function readManifest<T>(path: string): T {
  return parse(readFileSync(new URL(path, appDir), 'utf8')) as T;
}

/** The Mydemo of the walk-through whose port is out of range. */
export const invalidMydemo = 'invalid-mydemo';

export const crdControllerDemo: DemoScenario = {
  async run({ clientset, output, signal, step, waitFor }) {
    const crd = readManifest<apiextensionsv1.CustomResourceDefinition>('crd/mydemo.yaml');
    const example = readManifest<crddemoV1.Mydemo>('example/example-mydemo.yaml');
    const mydemos = crddemoV1.mydemosClient(clientset, 'default');

    // The CRD does not exist yet: the informer's list fails, and is retried with backoff.
    await waitFor('Failed to list *v1.Mydemo: the server could not find the requested resource');
    step(`creating the CustomResourceDefinition ${crd.metadata?.name} (crd/mydemo.yaml)`);
    await clientset.apiextensionsV1().customResourceDefinitions().create(crd);
    await waitFor('Started workers');

    step('creating Mydemo default/example-mydemo (example/example-mydemo.yaml)');
    let since = output.mark();
    await mydemos.create(example);
    await waitFor("Successfully synced 'default/example-mydemo'", since);
    await waitFor("reason: 'Synced' Mydemo synced successfully", since);

    step('changing the port of default/example-mydemo to 9090');
    since = output.mark();
    await mydemos.patch('example-mydemo', PatchType.MergePatch, { spec: { port: 9090 } });
    await waitFor(/\[DemoCRD\] Try to process mydemo: .*"port":9090/, since);
    await waitFor("Successfully synced 'default/example-mydemo'", since);

    step(`creating Mydemo default/${invalidMydemo} with port 70000`);
    since = output.mark();
    await mydemos.create({
      apiVersion: 'crddemo.k8s.io/v1',
      kind: 'Mydemo',
      metadata: { name: invalidMydemo },
      spec: { ip: '127.0.0.1', port: 70_000 },
    });
    await waitFor("reason: 'InvalidSpec' Invalid spec: spec.port 70000 is outside 1-65535", since);

    step('deleting Mydemo default/example-mydemo');
    since = output.mark();
    await mydemos.delete('example-mydemo');
    await waitFor('[DemoCRD] Deleting mydemo: default/example-mydemo ...', since);

    // The Events were written to the API server too (asynchronously, by the recorder's sink).
    for (let attempt = 0; ; attempt++) {
      const events = await clientset.coreV1().events('default').list();
      const described = events.items
        .filter((e) => e.involvedObject.kind === 'Mydemo')
        .map(
          (e) => `${e.involvedObject.name}: ${e.type} ${e.reason} ×${e.count ?? 1} "${e.message}"`,
        )
        .sort();
      const synced = described.some((d) => d.startsWith('example-mydemo: Normal Synced'));
      const warned = described.some((d) => d.startsWith(`${invalidMydemo}: Warning InvalidSpec`));
      if ((synced && warned) || attempt === 50) {
        step(`Events of Mydemo objects on the API server: ${described.join('; ') || 'none'}`);
        if (!synced || !warned) throw new Error('the Events were not written to the API server');
        break;
      }
      await sleep(200, signal);
    }
  },
};
