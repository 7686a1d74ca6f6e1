// The Pods the benchmark creates, with labels and a 200-byte annotation as BRIEF §6
// specifies: about 0.93 KB as sent, about 2.7 KB of JSON each as the API server lists them
// (kube-apiserver 1.20 adds defaults, status and managedFields; 26.7 MB for 10,000 Pods).

/** The label every patch changes, so each patch is a real update. */
export const generationLabel = 'bench.kubets.dev/generation';

/** The annotation of 200 bytes every Pod carries. */
export const noteAnnotation = 'bench.kubets.dev/note';

/** The namespace the Pods live in. */
export const benchNamespace = 'kubets-bench';

/** The name of Pod number `i` (zero-padded so the API server lists them in creation order). */
export function podName(i: number): string {
  return `bench-pod-${String(i).padStart(6, '0')}`;
}

/** 200 bytes of text that differ per Pod (a real annotation is rarely all one character). */
export function note(i: number): string {
  const seed = `pod ${i} of the kubets benchmark; `;
  return seed.repeat(Math.ceil(200 / seed.length)).slice(0, 200);
}

/** Pod number `i` as sent to the API server (a plain JSON object). */
export function podFixture(i: number, namespace: string = benchNamespace): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(i),
      namespace,
      labels: {
        app: 'kubets-bench',
        tier: i % 2 === 0 ? 'frontend' : 'backend',
        shard: `shard-${i % 16}`,
        [generationLabel]: 'g0',
      },
      annotations: { [noteAnnotation]: note(i) },
    },
    spec: {
      // No node has this label, so a real scheduler leaves the Pods Pending too.
      nodeSelector: { 'bench.kubets.dev/no-such-node': 'true' },
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'app',
          image: 'registry.example.invalid/kubets/bench-app:1.0.0',
          args: ['--port=8080', '--log-level=info', `--instance=${i}`],
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'POD_INDEX', value: String(i) },
            { name: 'MODE', value: 'benchmark' },
          ],
          resources: {
            requests: { cpu: '10m', memory: '16Mi' },
            limits: { cpu: '100m', memory: '64Mi' },
          },
        },
      ],
    },
  };
}

/**
 * The generation label value of update pass `pass` (0-based) of a patch round: with
 * `--updates-per-pod K` every Pod is patched K times, each time to a new value.
 */
export function generationValue(generation: string, pass: number): string {
  return `${generation}.${pass}`;
}

/** True when a label value was set by a pass of the patch round `generation`. */
export function isGenerationValue(value: string | undefined, generation: string): boolean {
  return value?.startsWith(`${generation}.`) === true;
}

/** The merge patch that sets the generation label to `value`. */
export function generationPatch(value: string): string {
  return JSON.stringify({ metadata: { labels: { [generationLabel]: value } } });
}
