import { ValidationError } from '@muse/core';
import { resultCount, type GenerationKind } from './parameters.ts';

/**
 * What a task costs. By default (the spec) a task costs its generator's `base_cost`, whatever it
 * asks for. An administrator may opt a generator into per-unit pricing with
 * `config.pricing = { mode: 'per_unit' }`: then an image task costs base_cost per image
 * (`count`), a video task base_cost per started `video_unit_seconds` of `duration`, a text task
 * base_cost. Generators show their resolved pricing, so clients compute the price before submitting.
 */
export type Pricing = { mode: 'per_task' } | { mode: 'per_unit'; video_unit_seconds: number };

/** Seconds of video one base_cost pays for under per-unit pricing, unless the generator says otherwise. */
export const DEFAULT_VIDEO_UNIT_SECONDS = 5;

/** The generator's pricing, read from its configuration (checked by pricingProblems on write). */
export function pricingOf(config: Record<string, unknown>): Pricing {
  const pricing = config.pricing as { mode?: unknown; video_unit_seconds?: unknown } | undefined;
  if (pricing?.mode !== 'per_unit') return { mode: 'per_task' };
  const unit = pricing.video_unit_seconds;
  return {
    mode: 'per_unit',
    video_unit_seconds: typeof unit === 'number' ? unit : DEFAULT_VIDEO_UNIT_SECONDS,
  };
}

/** What is wrong with `config.pricing`, as 422 details (none when it is absent or valid). */
export function pricingProblems(pricing: unknown): { path: string; message: string }[] {
  if (pricing === undefined) return [];
  const path = '/config/pricing';
  if (typeof pricing !== 'object' || pricing === null || Array.isArray(pricing))
    return [{ path, message: 'must be an object such as {"mode": "per_unit"}' }];
  const { mode, video_unit_seconds: unit, ...rest } = pricing as Record<string, unknown>;
  const problems: { path: string; message: string }[] = [];
  if (mode !== 'per_task' && mode !== 'per_unit')
    problems.push({ path: `${path}/mode`, message: 'must be per_task or per_unit' });
  if (unit !== undefined && (!Number.isInteger(unit) || (unit as number) < 1 || (unit as number) > 3600))
    problems.push({ path: `${path}/video_unit_seconds`, message: 'must be an integer from 1 to 3600' });
  for (const key of Object.keys(rest))
    problems.push({ path: `${path}/${key}`, message: 'is not a pricing setting' });
  return problems;
}

/** Credits a task costs under the generator's pricing (see Pricing). */
export function generationCost(
  kind: GenerationKind,
  baseCost: number,
  pricing: Pricing,
  params: Record<string, unknown>,
): number {
  if (pricing.mode === 'per_task' || kind === 'text') return baseCost;
  if (kind === 'image') return baseCost * resultCount(kind, params);
  const duration = typeof params.duration === 'number' ? params.duration : pricing.video_unit_seconds;
  const cost = baseCost * Math.max(1, Math.ceil(duration / pricing.video_unit_seconds));
  // A generator schema without a maximum must not turn a huge duration into a 500.
  if (!Number.isSafeInteger(cost)) {
    throw new ValidationError('The parameters do not match the generator schema', [
      { path: '/duration', message: 'is too long' },
    ]);
  }
  return cost;
}
