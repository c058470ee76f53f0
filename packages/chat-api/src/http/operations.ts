import {
  ERROR_RESPONSES,
  methodsOf,
  pathParameterNames,
  type Endpoint,
  type ErrorStatus,
  type Method,
} from './endpoint.ts';
import type { JsonSchema, Param } from './params.ts';

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/**
 * The OpenAPI paths of declared endpoints: parameters in the query string for GET and DELETE,
 * a form body (urlencoded or multipart, JSON-encoded values named in `encoding`) otherwise, and
 * the success answer's schema inside Zulip's envelope.
 */
export function endpointPaths(endpoints: readonly Endpoint[]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const declared of endpoints) {
    const methods = methodsOf(declared);
    for (const method of methods) {
      const item = (paths[`/api/v1${declared.path}`] ??= {});
      if (item[method]) throw new Error(`${method.toUpperCase()} ${declared.path} is declared twice`);
      const operationId = method === methods[0] ? declared.operationId : `${declared.operationId}_${method}`;
      item[method] = operation(declared, method, operationId);
    }
  }
  return paths;
}

function operation(declared: Endpoint, method: Method, operationId: string): Record<string, unknown> {
  const pathNames = pathParameterNames(declared.path);
  const entries = Object.entries(declared.params ?? {});
  const inPath = entries.filter(([name]) => pathNames.has(name));
  const inForm = entries.filter(([name]) => !pathNames.has(name));
  const inQuery = method === 'get' || method === 'delete';
  const examples = (declared.example?.params ?? {}) as Record<string, unknown>;
  const parameters = [
    ...inPath.map(([name, param]) => ({
      name,
      in: 'path',
      required: true,
      schema: param.documentedSchema(),
      ...(name in examples ? { example: examples[name] } : {}),
    })),
    ...(inQuery ? inForm.map(([name, param]) => queryParameter(name, param, examples)) : []),
  ];
  const statuses: ErrorStatus[] = [
    400,
    ...(declared.public ? [] : [401 as const]),
    ...(declared.errors ?? []),
    // Every authenticated write counts against its user's limit (user-rate-limit.ts).
    ...(declared.public || method === 'get' ? [] : [429 as const]),
    // A path id that is not a number matches no route: Zulip's 404 "Unknown endpoint".
    ...(inPath.length ? [404 as const] : []),
    // Any request may carry a body past its budget (http/body.ts), or meet a saturated database.
    413,
    // Parameters in the query string can make the request line longer than Node lets through.
    ...(inQuery && inForm.length ? [431 as const] : []),
    503,
  ];
  return {
    operationId,
    ...(declared.tag ? { tags: [declared.tag] } : {}),
    summary: declared.summary,
    ...(declared.description ? { description: declared.description } : {}),
    ...(declared.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(!inQuery && (inForm.length || declared.fileLimit)
      ? { requestBody: formBody(inForm, examples, declared.fileLimit !== undefined) }
      : {}),
    responses: {
      ...(declared.redirect ? redirectAnswer(declared) : jsonAnswer(declared)),
      ...Object.fromEntries(
        [...new Set(statuses)].map((status) => [String(status), ref('responses', ERROR_RESPONSES[status])]),
      ),
    },
  };
}

function jsonAnswer(declared: Endpoint): Record<string, unknown> {
  return {
    '200': {
      description: 'Success',
      content: {
        'application/json': {
          schema: successSchema(declared.response),
          ...(declared.example?.response
            ? { example: { result: 'success', msg: '', ...declared.example.response } }
            : {}),
        },
      },
    },
  };
}

/** A success that sends the browser on: 302 with where to, and a line saying so (as text or HTML, by Accept). */
function redirectAnswer(declared: Endpoint): Record<string, unknown> {
  const location = declared.example?.location;
  return {
    '302': {
      description: declared.redirect,
      headers: {
        Location: {
          required: true,
          schema: { type: 'string', format: 'uri-reference' },
          ...(location ? { example: location } : {}),
        },
      },
      content: Object.fromEntries(
        ['text/plain', 'text/html'].map((media) => [media, { schema: { type: 'string' } }]),
      ),
    },
  };
}

/** A JSON-encoded query parameter is `content: application/json`, as in Zulip's own document. */
function queryParameter(
  name: string,
  param: Param<unknown>,
  examples: Record<string, unknown>,
): Record<string, unknown> {
  const schema = param.documentedSchema();
  const example = name in examples ? { example: examples[name] } : {};
  return {
    name,
    in: 'query',
    ...(param.required ? { required: true } : {}),
    ...(param.spec.json
      ? { content: { 'application/json': { schema, ...example } } }
      : { schema, ...example }),
  };
}

/** The file part of an endpoint that takes one (any part name is read; `file` is documented). */
const FILE_PART = { file: { type: 'string', format: 'binary', description: 'The file.' } };

function formBody(
  params: [string, Param<unknown>][],
  examples: Record<string, unknown>,
  takesFile: boolean,
): Record<string, unknown> {
  const required = [
    ...(takesFile ? ['file'] : []),
    ...params.filter(([, param]) => param.required).map(([name]) => name),
  ];
  const schema = {
    type: 'object',
    properties: {
      ...(takesFile ? FILE_PART : {}),
      // Swagger UI fills a form's fields from each property's example, not from the body's.
      ...Object.fromEntries(
        params.map(([name, param]) => [
          name,
          { ...param.documentedSchema(), ...(name in examples ? { example: examples[name] } : {}) },
        ]),
      ),
    },
    ...(required.length ? { required } : {}),
  };
  const encoding = Object.fromEntries(
    params
      .filter(([, param]) => param.spec.json)
      .map(([name]) => [name, { contentType: 'application/json' }]),
  );
  const example = Object.fromEntries(
    params.filter(([name]) => name in examples).map(([name]) => [name, examples[name]]),
  );
  const media = {
    schema,
    ...(Object.keys(encoding).length ? { encoding } : {}),
    ...(Object.keys(example).length ? { example } : {}),
  };
  // A file goes in a multipart body only.
  return {
    required: required.length > 0,
    content: {
      ...(takesFile ? {} : { 'application/x-www-form-urlencoded': media }),
      'multipart/form-data': media,
    },
  };
}

/** Zulip's success envelope around the endpoint's own fields. */
function successSchema(response: JsonSchema = {}): JsonSchema {
  const properties = (response.properties ?? {}) as Record<string, unknown>;
  const required = (response.required ?? []) as string[];
  return {
    ...response,
    type: 'object',
    required: ['result', 'msg', ...required],
    properties: {
      result: { type: 'string', const: 'success' },
      msg: { type: 'string' },
      ignored_parameters_unsupported: ref('schemas', 'IgnoredParameters'),
      ...properties,
    },
    additionalProperties: response.additionalProperties ?? false,
  };
}
