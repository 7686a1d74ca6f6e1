// etcd's v3 HTTP/JSON gateway, for tests that make kube-apiserver forget history (a 410).

/** etcd's current revision. */
export async function etcdRevision(etcdEndpoint: string): Promise<number> {
  const res = await fetch(`${etcdEndpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from('/').toString('base64') }),
  });
  const body = (await res.json()) as { header: { revision: string } };
  return Number(body.header.revision);
}

/** Compacts etcd's history up to `revision`: older revisions can no longer be read or watched. */
export async function compactEtcd(etcdEndpoint: string, revision: number): Promise<void> {
  const res = await fetch(`${etcdEndpoint}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(revision), physical: true }),
  });
  if (res.status !== 200) {
    throw new Error(
      `etcd compaction to revision ${revision} answered ${res.status}: ${await res.text()}`,
    );
  }
}
