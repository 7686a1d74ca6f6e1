import { isObject, type JsonValue } from '../patch.js';
import {
  eachObject,
  exactlyOneErrors,
  invalid,
  notFound,
  required,
  type UnionMember,
} from './field-errors.js';
import { dnsLabelErrors, duplicateErrors, type FieldError } from './names.js';

/** The one field each of these sources requires. */
const REQUIRED_SOURCE_FIELD: Record<string, string> = {
  hostPath: 'path',
  secret: 'secretName',
  persistentVolumeClaim: 'claimName',
  configMap: 'name',
};

function requiredSourceField(key: string) {
  const needed = REQUIRED_SOURCE_FIELD[key];
  if (needed === undefined) return undefined;
  return (source: JsonValue, at: string): FieldError[] => {
    const value = isObject(source) ? source[needed] : undefined;
    return typeof value === 'string' && value !== '' ? [] : [required(`${at}.${needed}`)];
  };
}

/**
 * A volume's source fields in the order kube-apiserver 1.20 checks them. It names two of
 * them otherwise than the wire does in its causes: `cephFS` and `downwarAPI`.
 */
const VOLUME_SOURCES: UnionMember[] = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs:cephFS',
  'quobyte',
  'downwardAPI:downwarAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
].map((entry) => {
  const [key = entry, path = key] = entry.split(':');
  const check = requiredSourceField(key);
  return { key, path, ...(check ? { check } : {}) };
});

/**
 * `ValidateVolumes`: per volume its source (exactly one; the commonest sources' required
 * field), its name (required, DNS label, unique). Returns the names of the volumes without
 * problems: only those can be mounted, as on the real server.
 */
export function validateVolumes(
  volumes: JsonValue | undefined,
  path: string,
): { errors: FieldError[]; names: Set<string> } {
  const names = new Set<string>();
  const errors = eachObject(volumes, path, (volume, at) => {
    const name = typeof volume.name === 'string' ? volume.name : '';
    const found = exactlyOneErrors(volume, VOLUME_SOURCES, at, 'volume');
    if (name === '') found.push(required(`${at}.name`));
    else found.push(...dnsLabelErrors(name, `${at}.name`));
    // A volume with problems is not recorded, so a later one of the same name is no duplicate.
    found.push(...duplicateErrors(name, new Set(names), `${at}.name`));
    if (found.length === 0) names.add(name);
    return found;
  });
  return { errors, names };
}

/** `ValidateVolumeMounts`: a known volume's name, a mount path, unique per container. */
export function validateVolumeMounts(
  mounts: JsonValue | undefined,
  volumes: Set<string>,
  path: string,
): FieldError[] {
  const mountPaths = new Set<string>();
  return eachObject(mounts, path, (mount, at) => {
    const errors: FieldError[] = [];
    const name = typeof mount.name === 'string' ? mount.name : '';
    const mountPath = typeof mount.mountPath === 'string' ? mount.mountPath : '';
    if (name === '') errors.push(required(`${at}.name`));
    if (!volumes.has(name)) errors.push(notFound(`${at}.name`, name));
    if (mountPath === '') errors.push(required(`${at}.mountPath`));
    if (mountPaths.has(mountPath)) {
      errors.push(invalid(`${at}.mountPath`, mountPath, 'must be unique'));
    }
    mountPaths.add(mountPath);
    return errors;
  });
}
