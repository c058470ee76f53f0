import type { FromSchema } from 'json-schema-to-ts';

/**
 * The one source of the custom resources: each kind's JSON Schemas here give both the CRD
 * (`crds.ts`, written into charts/muse/crds by `npm run crds -w @muse/operator`) and the
 * TypeScript types the reconcilers use.
 */
export const GROUP = 'muse.dev';
export const VERSION = 'v1alpha1';

const secretKeyRef = {
  type: 'object',
  description: 'A key of a Secret in the resource’s namespace.',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 253 },
    key: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$' },
  },
  required: ['name', 'key'],
  additionalProperties: false,
} as const;

/** A value read from a Secret key (`{secretKeyRef: {name, key}}`), as a Pod's env `valueFrom`. */
const fromSecret = <const Extra extends object>(extra: Extra) =>
  ({
    type: 'object',
    ...extra,
    properties: { secretKeyRef },
    required: ['secretKeyRef'],
    additionalProperties: false,
  }) as const;

/** Free-form settings, passed on as they are (the platform validates them and reports problems in Ready). */
const freeForm = {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
} as const;

const conditions = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    properties: {
      type: { type: 'string' },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string' },
      message: { type: 'string' },
      observedGeneration: { type: 'integer' },
      lastTransitionTime: { type: 'string', format: 'date-time' },
    },
    required: ['type', 'status', 'lastTransitionTime'],
    additionalProperties: false,
  },
} as const;

/** A kind's status: observedGeneration and conditions, as every kind has, and its own fields. */
const statusWith = <const Fields extends Record<string, unknown>>(fields: Fields) =>
  ({
    type: 'object',
    properties: { observedGeneration: { type: 'integer' }, conditions, ...fields },
    additionalProperties: false,
  }) as const;

const readyColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};
const reasonColumn = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  priority: 1,
};
const ageColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
/** The columns every kind ends with. */
const statusColumns = [readyColumn, reasonColumn, ageColumn] as const;

export const generatorSpecSchema = {
  type: 'object',
  properties: {
    displayName: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Name shown to users; defaults to the resource name.',
    },
    kind: { type: 'string', enum: ['image', 'video', 'text'], description: 'What the generator makes.' },
    type: { type: 'string', minLength: 1, description: 'Adapter type (builtin, openai, replicate, ...).' },
    description: { type: 'string' },
    baseCost: {
      type: 'integer',
      minimum: 0,
      description:
        'Credits charged per task (per image or video unit when config.pricing opts into per_unit).',
    },
    active: { type: 'boolean', default: true },
    config: {
      ...freeForm,
      description:
        'Adapter settings (base_url, model, timeouts) and pricing ({mode: per_task | per_unit, video_unit_seconds}).',
    },
    parametersSchema: { ...freeForm, description: 'JSON Schema of the generation parameters.' },
    apiKey: fromSecret({ description: 'The upstream API key.' }),
  },
  required: ['kind', 'type', 'baseCost'],
  additionalProperties: false,
} as const;

export const generatorStatusSchema = statusWith({ generatorId: { type: 'string' } });

export const providerSpecSchema = {
  type: 'object',
  properties: {
    displayName: { type: 'string', minLength: 1, maxLength: 200 },
    type: {
      type: 'string',
      enum: ['aliyun_sms', 'aliyun_voice', 'tencent_sms', 'tencent_voice', 'webhook', 'log'],
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'type cannot be changed' }],
    },
    enabled: { type: 'boolean', default: true },
    priority: { type: 'integer', minimum: 0, default: 100, description: 'Lower is tried first.' },
    config: { ...freeForm, description: 'Settings of the provider type.' },
    secrets: {
      type: 'object',
      description: 'Each secret setting of the provider type, by name, from a Secret key.',
      additionalProperties: fromSecret({}),
    },
  },
  required: ['type'],
  additionalProperties: false,
} as const;

export const providerStatusSchema = statusWith({ providerId: { type: 'string' } });

export const organizationSpecSchema = {
  type: 'object',
  properties: {
    subdomain: {
      type: 'string',
      maxLength: 63,
      pattern: '^([a-z0-9]([a-z0-9-]*[a-z0-9])?)?$',
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'subdomain cannot be changed' }],
    },
    name: { type: 'string', minLength: 1, maxLength: 60 },
    description: { type: 'string' },
    owner: {
      type: 'object',
      properties: {
        email: {
          type: 'string',
          pattern: '^[^@\\s]+@[^@\\s]+$',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'the owner cannot be changed' }],
        },
        fullName: { type: 'string', minLength: 1, maxLength: 100 },
      },
      required: ['email', 'fullName'],
      additionalProperties: false,
    },
    apiKeySecretName: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      description: 'Secret the operator writes the owner’s email and API key to; default <name>-owner.',
    },
  },
  required: ['subdomain', 'name', 'owner'],
  additionalProperties: false,
} as const;

export const organizationStatusSchema = statusWith({
  realmId: { type: 'integer' },
  ownerUserId: { type: 'integer' },
  apiKeySecretName: { type: 'string' },
});

export const RESOURCE_KINDS = {
  Generator: {
    plural: 'generators',
    singular: 'generator',
    shortNames: ['musegen'],
    spec: generatorSpecSchema,
    status: generatorStatusSchema,
    columns: [
      { name: 'Kind', type: 'string', jsonPath: '.spec.kind' },
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      { name: 'Cost', type: 'integer', jsonPath: '.spec.baseCost' },
      ...statusColumns,
    ],
  },
  VerificationCodeProvider: {
    plural: 'verificationcodeproviders',
    singular: 'verificationcodeprovider',
    shortNames: ['musecodes'],
    spec: providerSpecSchema,
    status: providerStatusSchema,
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      { name: 'Priority', type: 'integer', jsonPath: '.spec.priority' },
      ...statusColumns,
    ],
  },
  ChatOrganization: {
    plural: 'chatorganizations',
    singular: 'chatorganization',
    shortNames: ['museorg'],
    spec: organizationSpecSchema,
    status: organizationStatusSchema,
    columns: [
      { name: 'Subdomain', type: 'string', jsonPath: '.spec.subdomain' },
      { name: 'Owner', type: 'string', jsonPath: '.spec.owner.email' },
      ...statusColumns,
    ],
  },
} as const;

export type ResourceKind = keyof typeof RESOURCE_KINDS;

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  generation: number;
  resourceVersion: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
}

export interface CustomResource<Spec, Status> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}

export type SecretKeyRef = FromSchema<typeof secretKeyRef>;
export type Condition = FromSchema<typeof conditions>[number];
export type GeneratorResource = CustomResource<
  FromSchema<typeof generatorSpecSchema>,
  FromSchema<typeof generatorStatusSchema>
>;
export type ProviderResource = CustomResource<
  FromSchema<typeof providerSpecSchema>,
  FromSchema<typeof providerStatusSchema>
>;
export type OrganizationResource = CustomResource<
  FromSchema<typeof organizationSpecSchema>,
  FromSchema<typeof organizationStatusSchema>
>;
