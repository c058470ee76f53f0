/**
 * The door the Kubernetes operator comes through (`@muse/content-api/operator-store`): the store
 * functions of generators and code providers, with the admin API's checks, and the claim of a row
 * by the resource that manages it.
 */
export {
  findManagedGenerator,
  upsertManagedGenerator,
  updateGenerator,
  type GeneratorRow,
} from './generators/generators.ts';
export type { GenerationKind } from './generators/parameters.ts';
export {
  assertTypeAllowed,
  createManagedProvider,
  deleteProvider,
  findManagedProvider,
  updateProvider,
  type ProviderRow,
} from './code-providers/store.ts';
