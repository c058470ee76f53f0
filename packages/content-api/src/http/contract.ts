import type { Request, Response } from 'express';
import type { components, paths } from '@muse/sdk/generated/content';
import type { Routes } from './routes.ts';

/**
 * Handlers typed from the contract: the types openapi-typescript generates from the served
 * document (the SDK's `src/generated/content.ts`, the one copy) give each route its path parameters, query, JSON body and
 * success answers, so a handler cannot read a field the document does not declare or answer a
 * shape it does not describe. The OpenAPI validator has already checked the request at runtime.
 */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Path = keyof paths;
type MethodOf<P extends Path> = {
  [M in Method]: paths[P][M] extends { responses: unknown } ? M : never;
}[Method];
type Operation<P extends Path, M extends MethodOf<P>> = paths[P][M];

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON request body, when the operation takes one. */
export type RequestBody<O> = O extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
/** The union of the operation's JSON success answers. */
export type Answer<O> = O extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: JsonOf<R[S]> }[keyof R & SuccessStatus]
  : never;
type PathParams<O> = O extends { parameters: { path: infer X } } ? X : Record<string, never>;
type Query<O> = O extends { parameters: { query?: infer X } } ? NonNullable<X> : Record<string, never>;

/** What `res.json` may be given for an answer: a Date where the document has its JSON string. */
export type Wire<T> = T extends string
  ? T | Date
  : T extends readonly (infer Item)[]
    ? readonly Wire<Item>[]
    : T extends Record<string, unknown>
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

export type ContractRequest<O> = Request<PathParams<O>, Wire<Answer<O>>, RequestBody<O>, Query<O>>;
export type ContractResponse<O> = Response<Wire<Answer<O>>>;

/** Declares the handler of the documented operation `method path` (OpenAPI path syntax: `{id}`). */
export function route<P extends Path, M extends MethodOf<P>>(
  routes: Routes,
  method: M,
  path: P,
  handler: (
    req: ContractRequest<Operation<P, M>>,
    res: ContractResponse<Operation<P, M>>,
  ) => Promise<void> | void,
): void {
  routes.add(method, path, handler as never);
}
