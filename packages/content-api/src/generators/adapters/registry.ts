import { builtinAdapter } from './builtin.ts';
import { openaiAdapter } from './openai.ts';
import { replicateAdapter } from './replicate.ts';
import type { GenerationAdapter } from './types.ts';

/** Generator `type` → the adapter that speaks its upstream's protocol. */
export const ADAPTERS = {
  builtin: builtinAdapter,
  openai: openaiAdapter,
  replicate: replicateAdapter,
} as const satisfies Record<string, GenerationAdapter>;

export type AdapterType = keyof typeof ADAPTERS;
export const ADAPTER_TYPES = Object.keys(ADAPTERS) as AdapterType[];

export function adapterFor(type: string): GenerationAdapter {
  const adapter = (ADAPTERS as Record<string, GenerationAdapter>)[type];
  if (!adapter) throw new Error(`unknown generator type ${type}`);
  return adapter;
}
