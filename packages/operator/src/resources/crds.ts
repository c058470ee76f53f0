import { GROUP, RESOURCE_KINDS, VERSION, type ResourceKind } from './schemas.ts';

type Json = Record<string, unknown>;

/**
 * A structural schema for the API server: `additionalProperties: false` (exact TypeScript types)
 * is dropped, as Kubernetes refuses it and prunes unknown fields anyway.
 */
function toStructural(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toStructural);
  if (!schema || typeof schema !== 'object') return schema;
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue;
    result[key] = key === 'properties' ? mapValues(value as Json, toStructural) : toStructural(value);
  }
  return result;
}

function mapValues(object: Json, map: (value: unknown) => unknown): Json {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
}

/** The apiextensions.k8s.io/v1 CustomResourceDefinition of one kind. */
export function customResourceDefinition(kind: ResourceKind): Json {
  const definition = RESOURCE_KINDS[kind];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${GROUP}`,
      labels: { 'app.kubernetes.io/part-of': 'muse' },
    },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind,
        listKind: `${kind}List`,
        plural: definition.plural,
        singular: definition.singular,
        shortNames: definition.shortNames,
        categories: ['muse'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: definition.columns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: toStructural(definition.spec),
                status: toStructural(definition.status),
              },
            },
          },
        },
      ],
    },
  };
}

export const CRD_KINDS = Object.keys(RESOURCE_KINDS) as ResourceKind[];

/** Where each CRD lives in the chart (Helm installs `crds/` before the templates). */
export const crdFileName = (kind: ResourceKind) => `${RESOURCE_KINDS[kind].plural}.${GROUP}.yaml`;
