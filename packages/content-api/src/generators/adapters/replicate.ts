import { authorization, endpoint } from './openai.ts';
import { requestJson } from './http.ts';
import {
  UpstreamError,
  type AdapterContext,
  type GenerationAdapter,
  type UpstreamResult,
  type UpstreamTask,
} from './types.ts';

/**
 * Replicate-style asynchronous predictions, the usual shape of video upstreams: POST
 * /v1/predictions answers an id at once, GET /v1/predictions/{id} reports starting,
 * processing, succeeded (with output URLs) or failed. Config: `base_url`, `version` (or
 * `model`); secret: `api_key`.
 */
export const replicateAdapter: GenerationAdapter = {
  kinds: ['image', 'video', 'text'],
  async start(task, context) {
    const prediction = await requestJson<Prediction>(context, endpoint(task, '/v1/predictions'), {
      method: 'POST',
      headers: authorization(task),
      body: {
        ...(task.config.version ? { version: task.config.version } : { model: task.config.model }),
        input: input(task),
      },
    });
    return interpret(prediction, context);
  },
  async poll(task, upstreamId, context) {
    const path = `/v1/predictions/${encodeURIComponent(upstreamId)}`;
    return interpret(
      await requestJson<Prediction>(context, endpoint(task, path), {
        method: 'GET',
        headers: authorization(task),
      }),
      context,
    );
  },
  async cancel(task, upstreamId, context) {
    const path = `/v1/predictions/${encodeURIComponent(upstreamId)}/cancel`;
    await requestJson(context, endpoint(task, path), { method: 'POST', headers: authorization(task) });
  },
};

interface Prediction {
  id?: string;
  status?: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  output?: string | string[] | null;
  error?: string | null;
}

function input(task: UpstreamTask): Record<string, unknown> {
  const { reference_file_ids: _references, count, ...rest } = task.params;
  return {
    ...rest,
    ...(count !== undefined ? { num_outputs: count } : {}),
    ...(task.referenceUrls.length ? { reference_images: task.referenceUrls } : {}),
  };
}

function interpret(prediction: Prediction, context: AdapterContext): UpstreamResult {
  switch (prediction.status) {
    case 'starting':
    case 'processing':
      if (!prediction.id)
        throw new UpstreamError('permanent', 'The upstream answered a prediction without an id');
      return { state: 'running', upstreamId: prediction.id };
    case 'succeeded': {
      const urls = [prediction.output ?? []].flat().filter((url): url is string => typeof url === 'string');
      if (!urls.length)
        throw new UpstreamError('permanent', 'The upstream prediction succeeded without output');
      return { state: 'succeeded', outputs: urls.map((url) => ({ url })) };
    }
    case 'failed':
    case 'canceled':
      context.logger.warn(
        { prediction: prediction.id, error: prediction.error },
        'upstream prediction ended',
      );
      throw new UpstreamError('permanent', `The upstream prediction ${prediction.status}`);
    default:
      throw new UpstreamError(
        'transient',
        `The upstream answered an unknown prediction status ${String(prediction.status)}`,
      );
  }
}
