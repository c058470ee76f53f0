export {
  createContentClient,
  type ContentClient,
  type ContentClientOptions,
  type ContentPaths,
} from './content/client.ts';
export type { AuthHelpers } from './content/auth.ts';
export type {
  DownloadToOptions,
  FileHelpers,
  FileRecord,
  NodeWritable,
  WaitOptions,
} from './content/files.ts';
export {
  MAX_GENERATION_WAIT_SECONDS,
  type CreateOptions,
  type GenerationHelpers,
  type GenerationKind,
  type GenerationRequest,
  type GenerationResult,
} from './content/generations.ts';
export type {
  Payment,
  PaymentCreateOptions,
  PaymentHelpers,
  PaymentProvider,
  PaymentWaitOptions,
} from './content/payments.ts';
export type { ListItem, ListPath, Paginate } from './content/paginate.ts';
export type { GeneratorHelpers, ResourceHelpers, ResourceName } from './content/resources.ts';
export { createChatClient, type ChatClient, type ChatClientOptions, type ChatPaths } from './chat/client.ts';
export type { ChatEvent, EventsOptions, RegisterParameters, RegisterState } from './chat/events.ts';
export { SDK_VERSION, type ClientOptions } from './client-options.ts';
export type {
  CallOptions,
  ClientHooks,
  RequestHookInfo,
  ResponseHookInfo,
  RetryHookInfo,
} from './transport/transport.ts';
export type { Answer, SuccessData, TypedClient, TypedMethod } from './typed-client.ts';
export type { components as ContentComponents } from './generated/content.ts';
export type { components as ChatComponents } from './generated/chat.ts';
export * from './errors.ts';
