import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Operation = { responses?: Record<string, ResponseObject> };
type ResponseObject = { $ref?: string; content?: Record<string, { schema?: unknown }> };
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, ResponseObject>; schemas?: Record<string, unknown> };
};

/** One API's served contract, able to judge an answer of that API. */
export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: { template: string; pattern: RegExp }[];

  private readonly document: Document;

  constructor(document: Document) {
    this.document = document;
    addFormats.default(this.ajv);
    this.ajv.addSchema(document as object, 'contract');
    // Literal paths win over templated ones (`/users/me` before `/users/{user}`).
    this.routes = Object.keys(document.paths)
      .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
        ),
      }));
  }

  /**
   * Compiles every answer schema before the first request, one at a time with a turn of the event
   * loop in between: compiling them while a test runs would delay its next request (a queue could
   * expire), and compiling them all in one go would block the loop long enough for the server to
   * close an idle kept-alive connection unnoticed.
   */
  async precompile(): Promise<void> {
    for (const [template, item] of Object.entries(this.document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of Object.keys(operation.responses ?? {})) {
          const pointer = this.schemaPointer(template, method, status);
          if (pointer) this.validator(pointer);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    }
  }

  /** Where the JSON schema of a documented answer is, if it has one. */
  private schemaPointer(template: string, method: string, status: string): string | undefined {
    let response = this.document.paths[template]?.[method]?.responses?.[status];
    let pointer = `#/paths/${escape(template)}/${method}/responses/${status}`;
    if (response?.$ref) {
      pointer = response.$ref;
      response = this.document.components?.responses?.[response.$ref.split('/').at(-1)!];
    }
    return response?.content?.['application/json']?.schema === undefined
      ? undefined
      : `${pointer}/content/application~1json/schema`;
  }

  /**
   * Throws unless the status is documented for the operation and the body matches its schema.
   * A request no operation serves must have been refused (404/405) with the API's error body.
   */
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
    const where = `${method.toUpperCase()} ${path} → ${status}`;
    const template = this.routes.find(
      (route) => route.pattern.test(path) && this.document.paths[route.template]?.[method.toLowerCase()],
    )?.template;
    if (!template) {
      if (status !== 404 && status !== 405) throw new Error(`${where}: no documented operation answers this`);
      if (this.document.components?.schemas?.Error) this.validate(where, '#/components/schemas/Error', body);
      return;
    }
    const operation = this.document.paths[template]![method.toLowerCase()]!;
    const statusKey = String(status);
    let response = operation.responses?.[statusKey];
    if (!response) throw new Error(`${where}: status ${status} is not documented for ${template}`);
    if (response.$ref)
      response = this.document.components?.responses?.[response.$ref.split('/').at(-1)!] ?? {};
    const isJson = contentType?.includes('json') ?? false;
    if (!response.content) {
      if (body !== undefined && body !== '') throw new Error(`${where}: a body where none is documented`);
      return;
    }
    const media = isJson
      ? 'application/json'
      : Object.keys(response.content).find((m) => !m.includes('json'));
    if (!media || !response.content[media])
      throw new Error(`${where}: content type ${contentType} is not documented`);
    const schema = isJson ? this.schemaPointer(template, method.toLowerCase(), statusKey) : undefined;
    if (schema) this.validate(where, schema, body);
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `contract${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  private validate(where: string, pointer: string, body: unknown): void {
    const validate = this.validator(pointer);
    if (!validate(body)) {
      throw new Error(
        `${where} does not match the API's own OpenAPI document: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}\nbody: ${JSON.stringify(body).slice(0, 1000)}`,
      );
    }
  }
}

/** JSON Pointer escaping of one path segment. */
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const contracts = new Map<string, Promise<Contract>>();

/** The contract served at `${baseUrl}/openapi.json`, fetched and compiled once per server. */
export function servedContract(baseUrl: string): Promise<Contract> {
  let contract = contracts.get(baseUrl);
  if (!contract) {
    contract = fetch(`${baseUrl}/openapi.json`)
      .then((response) => response.json())
      .then(async (document) => {
        const loaded = new Contract(document as Document);
        await loaded.precompile();
        return loaded;
      });
    contracts.set(baseUrl, contract);
  }
  return contract;
}

/**
 * Fails unless the answer is one the API's own served document allows: the status is documented
 * for the operation, and the body matches that response's schema. Load the contract with
 * `servedContract` before sending, so the first check does not delay anything.
 */
export function expectDocumentedAnswer(
  contract: Contract,
  method: string,
  url: string,
  answer: { status: number; contentType: string | null; body: unknown },
): void {
  contract.check(method, new URL(url).pathname, answer.status, answer.contentType, answer.body);
}

/** The operations' examples as a reference page shows them, read from an OpenAPI document. */
export interface OperationExample {
  method: string;
  route: string;
  operationId: string;
  /** Parameter examples by where they go. */
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  /** The request body's example and its media type, when the operation takes a body. */
  body?: { media: string; example: unknown };
  /** The first documented success status, and its answer's example where it has a body. */
  status: number;
  answer?: { media: string; example: unknown };
  /**
   * What the reference leaves without an example: `path id`, `request body`, `answer 200` (a
   * JSON answer; a download's bytes need none).
   */
  missing: string[];
}

type ExampleParameter = {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
};
type ExampleOperation = {
  operationId: string;
  parameters?: ExampleParameter[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, ResponseObject & { content?: Record<string, { example?: unknown }> }>;
};

/**
 * Every operation of the document with its examples: a value for each required parameter, the
 * request body and the success answer. What has none is named in `missing`, so a check can
 * require an example on every operation.
 */
export function operationExamples(document: {
  paths: Record<string, unknown>;
  components?: { parameters?: Record<string, unknown>; responses?: Record<string, unknown> };
}): OperationExample[] {
  const component = <T>(section: 'parameters' | 'responses', value: { $ref?: string }): T =>
    (value.$ref ? document.components?.[section]?.[value.$ref.split('/').at(-1)!] : value) as T;
  return Object.entries(document.paths).flatMap(([route, entry]) => {
    const item = entry as Record<string, ExampleOperation> & { parameters?: ExampleParameter[] };
    return ['get', 'put', 'post', 'patch', 'delete'].flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const missing: string[] = [];
      const values: Record<string, Record<string, unknown>> = { path: {}, query: {}, header: {} };
      for (const declared of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const parameter = component<ExampleParameter>('parameters', declared);
        if (parameter.example !== undefined) values[parameter.in]![parameter.name] = parameter.example;
        else if (parameter.required) missing.push(`${parameter.in} ${parameter.name}`);
      }
      let body: OperationExample['body'];
      if (operation.requestBody) {
        const [media, content] = Object.entries(operation.requestBody.content)[0]!;
        if (content.example === undefined) missing.push('request body');
        else body = { media, example: content.example };
      }
      // The success the example shows: the first with an example (a submit's 202 rather than the
      // 200 it answers when asked to wait), else the first.
      type Success = { content?: Record<string, { example?: unknown }> };
      const successes = Object.keys(operation.responses)
        .filter((code) => /^(2\d\d|101)$/.test(code))
        .map((code) => ({ code, response: component<Success>('responses', operation.responses[code]!) }));
      const { code: status, response: success } =
        successes.find(({ response }) =>
          Object.values(response.content ?? {}).some((media) => media.example !== undefined),
        ) ?? successes[0]!;
      let answer: OperationExample['answer'];
      if (success.content) {
        const [media, content] = Object.entries(success.content)[0]!;
        if (content.example === undefined) {
          if (media.includes('json')) missing.push(`answer ${status}`);
        } else answer = { media, example: content.example };
      }
      return [
        {
          method,
          route,
          operationId: operation.operationId,
          path: values.path!,
          query: values.query!,
          header: values.header!,
          ...(body ? { body } : {}),
          status: Number(status),
          ...(answer ? { answer } : {}),
          missing,
        },
      ];
    });
  });
}
