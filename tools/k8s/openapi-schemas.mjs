// Writes kubeconform's JSON schemas from a running API server's OpenAPI v2 document (no schema
// download is possible here): one file per kind, `<kind>[-<group>]-<version>.json` as kubeconform's
// default file name template expects, referring to the definitions in `_definitions.json` beside
// them. Strict like openapi2jsonschema --strict: an object that lists its properties allows no others.
//
//   kubectl get --raw /openapi/v2 > openapi.json
//   node tools/k8s/openapi-schemas.mjs openapi.json OUT_DIR
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const [input, outDir] = process.argv.slice(2);
if (!input || !outDir) {
  console.error('usage: node openapi-schemas.mjs OPENAPI_V2_JSON OUT_DIR');
  process.exit(2);
}
const { definitions } = JSON.parse(await readFile(input, 'utf8'));

function strict(schema) {
  if (Array.isArray(schema)) return schema.map(strict);
  if (!schema || typeof schema !== 'object') return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, strict(value)]));
  if (typeof copy.$ref === 'string')
    copy.$ref = copy.$ref.replace('#/definitions/', '_definitions.json#/definitions/');
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  // int-or-string fields are typed `string` with a format in OpenAPI v2; accept both as the server does.
  if (copy.format === 'int-or-string') {
    delete copy.type;
    copy.oneOf = [{ type: 'string' }, { type: 'integer' }];
  }
  return copy;
}

const all = strict(definitions);
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, '_definitions.json'), JSON.stringify({ definitions: all }));
let written = 0;
for (const [name, definition] of Object.entries(all)) {
  for (const { group, version, kind } of definitions[name]['x-kubernetes-group-version-kind'] ?? []) {
    if (!definition.properties?.kind) continue; // lists and options carry a GVK too; only objects with `kind` are manifests
    const suffix = group ? `-${group.split('.')[0]}-${version}` : `-${version}`;
    const file = path.join(outDir, `${kind.toLowerCase()}${suffix}.json`);
    await writeFile(file, JSON.stringify(definition));
    written++;
  }
}
console.error(`openapi-schemas: ${written} schemas in ${outDir}`);
