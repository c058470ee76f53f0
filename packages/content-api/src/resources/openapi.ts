import { ACCESS } from '../http/authorize.ts';
import { isWritableOn, type JsonSchema, type ResourceDeclaration } from './define.ts';

/**
 * The OpenAPI fragment of declared resources: for each, the collection and item paths and the
 * schemas `<Name>`, `<Name>Create`, `<Name>Update`. It joins the served document, so the same
 * declaration documents the API and validates its requests.
 */
export type OpenApiFragment = {
  paths: Record<string, unknown>;
  components: Record<string, Record<string, unknown>>;
  tags: { name: string; description: string }[];
};

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });
const json = (schema: unknown, example?: unknown) => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

/** The shared list parameters (pagination, sorting, time filters) as references into the document. */
const LIST_PARAMETER_REFS = [
  'Offset',
  'Limit',
  'Desc',
  'Order',
  'CreatedAfter',
  'CreatedBefore',
  'UpdatedAfter',
  'UpdatedBefore',
].map((name) => ref('parameters', name));

const ID_PARAMETER = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The resource id (UUID).',
  schema: { type: 'string', format: 'uuid' },
};

const SCOPE_PARAMETER = {
  name: 'scope',
  in: 'query',
  description: "own: the caller's; public: public ones; all: every one (administrators only, 403 otherwise).",
  schema: { type: 'string', enum: ['own', 'public', 'all'] },
};

const FRAME_PROPERTIES: Record<string, JsonSchema> = {
  id: { type: 'string', format: 'uuid' },
  owner_id: { type: 'string', format: 'uuid', description: 'The user who created it.' },
  visibility: {
    type: 'string',
    enum: ['private', 'public'],
    description: 'private: only the owner (and administrators) may read it; public: every user may read it.',
  },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
};

const errors = (...names: string[]) =>
  Object.fromEntries(names.map((status) => [status, ERROR_RESPONSES[status]]));
/** The owner and times every resource example shows (the user of the users area's examples). */
const EXAMPLE_FRAME = {
  owner_id: '6f1c2a4e-8b3d-4c5e-9f7a-1b2c3d4e5f60',
  created_at: '2026-03-01T09:30:00.000Z',
  updated_at: '2026-03-01T09:30:00.000Z',
};

/** The declaration's example as the API presents it: the frame, then its fields. */
function exampleRow(declaration: ResourceDeclaration): Record<string, unknown> {
  const { id, ...fields } = declaration.example;
  const visibility = declaration.privateOnly ? 'private' : (declaration.defaultVisibility ?? 'private');
  return { id, visibility, ...EXAMPLE_FRAME, ...fields };
}

/** The example body of a create or an update: the example's fields that operation may set. */
function exampleBody(
  declaration: ResourceDeclaration,
  operation: 'create' | 'update',
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (operation === 'create' && !declaration.privateOnly)
    body.visibility = exampleRow(declaration).visibility;
  for (const [field, declared] of Object.entries(declaration.fields))
    if (isWritableOn(declared, operation) && field in declaration.example)
      body[field] = declaration.example[field];
  return body;
}

const ERROR_RESPONSES: Record<string, unknown> = {
  '401': ref('responses', 'Unauthorized'),
  '403': ref('responses', 'Forbidden'),
  '404': ref('responses', 'NotFound'),
  '409': ref('responses', 'ResourceConflict'),
  '422': ref('responses', 'ValidationFailed'),
};

export function resourcesOpenApiFragment(declarations: readonly ResourceDeclaration[]): OpenApiFragment {
  const fragment: OpenApiFragment = {
    paths: {},
    components: {
      schemas: {},
      responses: {
        ResourceConflict: {
          description:
            'The request conflicts with the current state (a duplicate, or a state that no longer allows it).',
          content: json(ref('schemas', 'Error')),
        },
      },
    },
    tags: [],
  };
  for (const declaration of declarations) addResource(fragment, declaration);
  return fragment;
}

function addResource(fragment: OpenApiFragment, declaration: ResourceDeclaration): void {
  const { schemaName: name, path, description } = declaration;
  const tag = declaration.name;
  fragment.tags.push({ name: tag, description });
  Object.assign(fragment.components.schemas!, resourceSchemas(declaration));
  const row = exampleRow(declaration);
  const collection: Record<string, unknown> = { get: listOperation(declaration) };
  const item: Record<string, unknown> = {
    parameters: [{ ...ID_PARAMETER, example: row.id }],
    get: {
      tags: [tag],
      operationId: `get${name}`,
      summary: `Read one ${declaration.name}`,
      description:
        'The caller reads their own, any public one, or (administrators) any. A missing id and another ' +
        "user's private one answer the same 404.",
      responses: {
        '200': { description: `The ${declaration.name}`, content: json(ref('schemas', name), row) },
        ...errors('401', '403', '404', '422'),
      },
    },
  };
  if (!declaration.readOnly) {
    const who = declaration.adminOnlyWrite ? 'Administrators only (403 for others).' : writeRule(declaration);
    // Read by authorizeOperation (src/http/authorize.ts) before the body is validated.
    const access = declaration.adminOnlyWrite ? { [ACCESS]: 'administrators' } : {};
    collection.post = {
      tags: [tag],
      operationId: `create${name}`,
      ...access,
      summary: `Create a ${declaration.name}`,
      description: `${who} The caller becomes the owner. Fields that reference other resources must name ones the caller may read (404 otherwise).`,
      requestBody: {
        required: true,
        content: json(ref('schemas', `${name}Create`), exampleBody(declaration, 'create')),
      },
      responses: {
        '201': { description: 'Created', content: json(ref('schemas', name), row) },
        ...errors('401', '403', '404', '409', '422'),
      },
    };
    item.patch = {
      tags: [tag],
      operationId: `update${name}`,
      ...access,
      summary: `Change a ${declaration.name} (including its visibility)`,
      description: `${who} Only the fields sent change.`,
      requestBody: {
        required: true,
        content: json(ref('schemas', `${name}Update`), exampleBody(declaration, 'update')),
      },
      responses: {
        '200': { description: 'Updated', content: json(ref('schemas', name), row) },
        ...errors('401', '403', '404', '409', '422'),
      },
    };
    item.delete = {
      tags: [tag],
      operationId: `delete${name}`,
      ...access,
      summary: `Delete a ${declaration.name}`,
      description: who,
      responses: { '204': { description: 'Deleted' }, ...errors('401', '403', '404', '422') },
    };
  }
  fragment.paths[`/api/v1${path}`] = collection;
  fragment.paths[`/api/v1${path}/{id}`] = item;
}

function writeRule(declaration: ResourceDeclaration): string {
  return (
    `Needs ${declaration.name}:<operation>:own for the caller's own; administrators may change or delete any. ` +
    "Another user's public one answers 403, another user's private one 404."
  );
}

function listOperation(declaration: ResourceDeclaration) {
  const scope = declaration.defaultListScope ?? 'own';
  const filters = Object.entries(declaration.fields)
    .filter(([, field]) => field.listFilter)
    .map(([field, { schema }]) => ({
      name: field,
      in: 'query',
      description: `Only rows whose ${field} equals this.`,
      schema,
    }));
  return {
    tags: [declaration.name],
    operationId: `list${declaration.pluralName ?? `${declaration.schemaName}s`}`,
    summary: `List ${declaration.name} resources`,
    description:
      `A page of a plain JSON array (\`[]\` past the end), sorted by \`order\` with ties broken by id. ` +
      `Scope defaults to ${scope}; own and public need ${declaration.name}:read:<scope>; all is for administrators (403 otherwise).`,
    parameters: [
      scope === 'own'
        ? ref('parameters', 'Scope')
        : { ...SCOPE_PARAMETER, schema: { ...SCOPE_PARAMETER.schema, default: scope } },
      ...LIST_PARAMETER_REFS,
      ...filters,
    ],
    responses: {
      '200': {
        description: 'The page',
        content: json({ type: 'array', items: ref('schemas', declaration.schemaName) }, [
          exampleRow(declaration),
        ]),
      },
      ...errors('401', '403', '422'),
    },
  };
}

function resourceSchemas(declaration: ResourceDeclaration): Record<string, JsonSchema> {
  const { schemaName: name, fields } = declaration;
  const properties: Record<string, JsonSchema> = { ...FRAME_PROPERTIES };
  for (const [field, { schema }] of Object.entries(fields)) properties[field] = schema;
  const schemas: Record<string, JsonSchema> = {
    [name]: {
      type: 'object',
      description: declaration.description,
      required: Object.keys(properties),
      properties,
    },
  };
  if (declaration.readOnly) return schemas;
  for (const operation of ['create', 'update'] as const) {
    const writable: Record<string, JsonSchema> = {};
    if (!declaration.privateOnly) writable.visibility = FRAME_PROPERTIES.visibility!;
    for (const [field, declared] of Object.entries(fields)) {
      if (!isWritableOn(declared, operation)) continue;
      writable[field] = declared.schema;
    }
    const required =
      operation === 'create' ? Object.keys(writable).filter((field) => fields[field]?.required) : [];
    schemas[`${name}${operation === 'create' ? 'Create' : 'Update'}`] = {
      type: 'object',
      additionalProperties: false,
      ...(required.length ? { required } : {}),
      properties: writable,
    };
  }
  return schemas;
}
