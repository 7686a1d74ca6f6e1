/** The defaults kube-apiserver 1.20 gives a Service on every write (probed). */
import type { JsonObject } from '../patch.js';
import { child, objects, setDefault } from './fields.js';

/** Defaults a Service's spec in place (allocation is `service-allocation.ts`'s). */
export function defaultService(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = child(child(spec, 'sessionAffinityConfig'), 'clientIP');
    setDefault(clientIP, 'timeoutSeconds', 10800);
  }
  for (const port of objects(spec.ports)) {
    setDefault(port, 'protocol', 'TCP');
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') {
      port.targetPort = port.port ?? 0;
    }
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  }
}
