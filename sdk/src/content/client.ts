import type { paths } from '../generated/content.ts';
import { contentApiError } from '../errors.ts';
import { transportFor, type ClientOptions } from '../client-options.ts';
import { createTypedClient, type TypedClient } from '../typed-client.ts';
import { authHelpers, type AuthHelpers } from './auth.ts';
import { fileHelpers, type FileHelpers } from './files.ts';
import { generationHelpers, type GenerationHelpers } from './generations.ts';
import { paginator, type Paginate } from './paginate.ts';
import { paymentHelpers, type PaymentHelpers } from './payments.ts';
import {
  generatorHelpers,
  resourceHelpers,
  type GeneratorHelpers,
  type ResourceHelpers,
  type ResourceName,
} from './resources.ts';

export type ContentPaths = paths;

export interface ContentClientOptions extends ClientOptions {
  /** A bearer token from an earlier login; `auth.login` sets one too. */
  token?: string;
}

export interface ContentClient extends TypedClient<paths> {
  /** The bearer token sent with every call, or null. */
  readonly token: string | null;
  setToken(token: string | null): void;
  auth: AuthHelpers;
  generations: GenerationHelpers;
  files: FileHelpers;
  payments: PaymentHelpers;
  paginate: Paginate;
  /** list/get/create/update/delete of any resource served at `/api/v1/<name>` and `/api/v1/<name>/{id}`. */
  resource<Name extends ResourceName>(name: Name): ResourceHelpers<Name>;
  characters: ResourceHelpers<'characters'>;
  conversations: ResourceHelpers<'conversations'>;
  bundles: ResourceHelpers<'bundles'>;
  users: ResourceHelpers<'users'>;
  generators: GeneratorHelpers;
}

/** A typed client of the content service. */
export function createContentClient(options: ContentClientOptions): ContentClient {
  let token = options.token ?? null;
  const transport = transportFor(options, contentApiError, (headers) => {
    if (token !== null && !headers.has('authorization')) headers.set('Authorization', `Bearer ${token}`);
  });
  const api = createTypedClient<paths>({
    baseUrl: options.baseUrl,
    transport,
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const setToken = (next: string | null) => {
    token = next;
  };
  const paginate = paginator(api);
  const resource = <Name extends ResourceName>(name: Name) => resourceHelpers(api, paginate, name);
  return {
    ...api,
    get token() {
      return token;
    },
    setToken,
    auth: authHelpers(api, setToken),
    generations: generationHelpers(api),
    files: fileHelpers(api, transport, options.baseUrl),
    payments: paymentHelpers(api),
    paginate,
    resource,
    characters: resource('characters'),
    conversations: resource('conversations'),
    bundles: resource('bundles'),
    users: resource('users'),
    generators: generatorHelpers(api, paginate),
  };
}
