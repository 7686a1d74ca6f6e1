// Writes scripts/kube-1.20-descriptions.json: kube-apiserver 1.20's descriptions of the types
// generate-openapi.mjs describes (the type's under "", then each property's), taken from the
// `api/openapi-spec/swagger.json` of the Kubernetes 1.20 source that scripts/provision-envtest.sh
// unpacks to build kube-apiserver. generate-openapi.mjs prefers them to client-node's newer
// texts, so `/openapi/v2`, `kubectl explain` and Table columns read as 1.20 writes them.
// Run: `node scripts/extract-1.20-descriptions.mjs <kubernetes-1.20 source>/api/openapi-spec/swagger.json`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const swaggerPath = process.argv[2];
if (!swaggerPath) {
  console.error(
    'usage: extract-1.20-descriptions.mjs <path to 1.20 api/openapi-spec/swagger.json>',
  );
  process.exit(2);
}
const swagger = JSON.parse(readFileSync(swaggerPath, 'utf8'));
const ours = JSON.parse(
  readFileSync(join(here, '../src/generated/openapi-builtins.json'), 'utf8'),
).definitions;
const out = {};
for (const name of Object.keys(ours).sort()) {
  const definition = swagger.definitions[name];
  if (!definition) continue;
  const texts = {};
  if (definition.description) texts[''] = definition.description;
  for (const property of Object.keys(definition.properties ?? {}).sort()) {
    const description = definition.properties[property].description;
    if (description) texts[property] = description;
  }
  out[name] = texts;
}
writeFileSync(join(here, 'kube-1.20-descriptions.json'), `${JSON.stringify(out, null, 2)}\n`);
