import { EventSourceParserStream } from 'eventsource-parser/stream';
import { downloadBytes, openStream, requestJson } from './http.ts';
import {
  UpstreamError,
  type AdapterContext,
  type ChatTask,
  type GenerationAdapter,
  type UpstreamTask,
} from './types.ts';

/**
 * Any OpenAI-compatible API: images through /v1/images/generations (base64 or URL results),
 * texts through /v1/chat/completions (streamed as server-sent events for chat replies).
 * Config: `base_url`, `model`; secret: `api_key`.
 */
export const openaiAdapter: GenerationAdapter = {
  kinds: ['image', 'text'],
  async start(task, context) {
    if (task.kind === 'image') return { state: 'succeeded', outputs: await generateImages(task, context) };
    return { state: 'succeeded', outputs: [await completeText(task, context)] };
  },
  streamChat,
};

interface ChatChunk {
  choices?: { delta?: { content?: string | null } }[];
}

/** `stream: true`: each `data:` event carries a delta; `data: [DONE]` ends the stream. */
async function streamChat(
  chat: ChatTask,
  context: AdapterContext,
  onChunk: (text: string) => Promise<void>,
): Promise<string> {
  const body = await openStream(context, endpoint(chat, '/v1/chat/completions'), {
    headers: { ...authorization(chat), accept: 'text/event-stream' },
    body: { model: chat.config.model, messages: chat.messages, stream: true },
  });
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  let text = '';
  let done = false;
  try {
    for await (const event of events) {
      if (event.data === '[DONE]') {
        done = true;
        break;
      }
      const piece = parseChunk(event.data).choices?.[0]?.delta?.content;
      if (!piece) continue;
      text += piece;
      await onChunk(piece);
    }
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError('transient', `The upstream's stream broke off: ${(error as Error).message}`);
  }
  if (!done) throw new UpstreamError('transient', 'The upstream closed the stream before [DONE]');
  return text;
}

function parseChunk(data: string): ChatChunk {
  try {
    return JSON.parse(data) as ChatChunk;
  } catch {
    throw new UpstreamError('permanent', 'The upstream streamed an event that is not JSON');
  }
}

interface ImagesResponse {
  data?: { b64_json?: string; url?: string }[];
}

async function generateImages(task: UpstreamTask, context: AdapterContext) {
  const response = await requestJson<ImagesResponse>(context, endpoint(task, '/v1/images/generations'), {
    method: 'POST',
    headers: authorization(task),
    body: {
      model: task.config.model,
      prompt: task.params.prompt,
      n: task.count,
      size: sizeFor(String(task.params.aspect_ratio ?? '1:1')),
      response_format: task.config.response_format ?? 'b64_json',
    },
  });
  const images = response.data ?? [];
  if (images.length < task.count) {
    throw new UpstreamError('permanent', `The upstream returned ${images.length} of ${task.count} images`);
  }
  return Promise.all(
    images.slice(0, task.count).map(async (image) => {
      if (image.b64_json) return { bytes: Buffer.from(image.b64_json, 'base64'), contentType: 'image/png' };
      if (image.url) return downloadBytes(context, image.url);
      throw new UpstreamError('permanent', 'The upstream returned an image with neither b64_json nor url');
    }),
  );
}

interface ChatResponse {
  choices?: { message?: { content?: string } }[];
}

async function completeText(task: UpstreamTask, context: AdapterContext) {
  const response = await requestJson<ChatResponse>(context, endpoint(task, '/v1/chat/completions'), {
    method: 'POST',
    headers: authorization(task),
    body: { model: task.config.model, messages: [{ role: 'user', content: task.params.prompt }] },
  });
  const content = response.choices?.[0]?.message?.content;
  if (typeof content !== 'string')
    throw new UpstreamError('permanent', 'The upstream returned no message content');
  return { bytes: Buffer.from(content, 'utf8'), contentType: 'text/plain; charset=utf-8' };
}

/** The three sizes OpenAI-style image APIs accept, picked by the requested shape. */
function sizeFor(aspectRatio: string): string {
  const [w, h] = aspectRatio.split(':').map(Number) as [number, number];
  if (w === h) return '1024x1024';
  return w > h ? '1536x1024' : '1024x1536';
}

type Settings = Pick<UpstreamTask, 'config' | 'secrets'>;

export function endpoint(task: Settings, path: string): string {
  return `${String(task.config.base_url).replace(/\/+$/, '')}${path}`;
}

export function authorization(task: Settings): Record<string, string> {
  return task.secrets.api_key ? { authorization: `Bearer ${String(task.secrets.api_key)}` } : {};
}
