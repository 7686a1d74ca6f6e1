// The world outside the cluster the operator keeps in step with each Mydemo: one record per
// Mydemo in a registry (here a directory of JSON files; in a real operator a DNS zone, a
// load balancer's pool, a CMDB). The record is written while the Mydemo exists and removed
// by the finalizer before the Mydemo may go: nothing in the cluster would remove it otherwise.

import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** What the operator registers for one Mydemo. */
export interface MydemoRecord {
  readonly namespace: string;
  readonly name: string;
  /** The Mydemo's uid: a record of an earlier Mydemo of the same name is told apart. */
  readonly uid: string;
  /** `spec.ip` of the Mydemo. */
  readonly ip: string;
  readonly port: number;
  /** The in-cluster DNS name of the Mydemo's Service. */
  readonly service: string;
}

/** A registry of records outside the cluster, one per Mydemo. */
export interface ExternalRecords {
  /** Writes the record of `record.namespace/record.name`; resolves `false` when it was already so. */
  put(record: MydemoRecord): Promise<boolean>;
  /** Removes the record of `namespace/name`; resolves `false` when there was none. */
  remove(namespace: string, name: string): Promise<boolean>;
  /** The record of `namespace/name`, or `undefined`. */
  get(namespace: string, name: string): Promise<MydemoRecord | undefined>;
  /** Every record, sorted by namespace and name. */
  list(): Promise<MydemoRecord[]>;
}

// Namespaces and names are DNS labels and subdomains: they never contain '_'.
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

// The file name is built from the arguments, so only what Kubernetes accepts as a namespace
// (a DNS label) and a name (a DNS subdomain) may reach the file system: no `/`, `..`, TAB or NUL.
function fileName(namespace: string, name: string): string {
  if (namespace.length > 63 || !dns1123Label.test(namespace)) {
    throw new Error(
      `DirectoryRecords: invalid namespace ${JSON.stringify(namespace.slice(0, 80))}`,
    );
  }
  if (name.length > 253 || !dns1123Subdomain.test(name)) {
    throw new Error(`DirectoryRecords: invalid name ${JSON.stringify(name.slice(0, 80))}`);
  }
  return `${namespace}_${name}.json`;
}

/**
 * {@link ExternalRecords} as a directory of JSON files, `<namespace>_<name>.json`, created
 * on first write. Writes go to a temporary file renamed into place, so a reader never sees
 * half a record.
 */
export class DirectoryRecords implements ExternalRecords {
  readonly dir: string;

  constructor(dir: string) {
    if (dir === '') throw new TypeError('DirectoryRecords needs a directory, got ""');
    this.dir = dir;
  }

  async put(record: MydemoRecord): Promise<boolean> {
    if (isDeepStrictEqual(await this.get(record.namespace, record.name), { ...record })) {
      return false;
    }
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, fileName(record.namespace, record.name));
    const partial = `${path}.${process.pid}.tmp`;
    await writeFile(partial, `${JSON.stringify(record, null, 2)}\n`);
    await rename(partial, path);
    return true;
  }

  async remove(namespace: string, name: string): Promise<boolean> {
    const path = join(this.dir, fileName(namespace, name));
    try {
      await rm(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async get(namespace: string, name: string): Promise<MydemoRecord | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.dir, fileName(namespace, name)), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return JSON.parse(text) as MydemoRecord;
  }

  async list(): Promise<MydemoRecord[]> {
    let files: string[];
    try {
      files = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const records: MydemoRecord[] = [];
    for (const file of files.filter((f) => f.endsWith('.json')).sort()) {
      records.push(JSON.parse(await readFile(join(this.dir, file), 'utf8')) as MydemoRecord);
    }
    return records;
  }
}
