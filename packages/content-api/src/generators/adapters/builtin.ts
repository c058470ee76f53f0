import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32, deflateSync } from 'node:zlib';
import type { ChatTask, GenerationAdapter, UpstreamOutput, UpstreamTask } from './types.ts';

/**
 * The offline generator: real files made in process, so the platform generates with no
 * upstream. Images are PNGs, videos are looping animated GIFs (the simplest moving-picture
 * format every browser plays, written without ffmpeg), texts are plain UTF-8. Everything is
 * derived from the prompt, so the same prompt gives the same file. `config.delay_ms` makes
 * it take that long, to imitate a real upstream. Chat replies stream word by word, spread over
 * `delay_ms` when it is set.
 */
export const builtinAdapter: GenerationAdapter = {
  kinds: ['image', 'video', 'text'],
  // With a delay it imitates an upstream, and runs as one.
  runsInProcess: (config) => !(Number(config.delay_ms ?? 0) > 0),
  async start(task) {
    const delay = Number(task.config.delay_ms ?? 0);
    if (delay > 0) await sleep(delay);
    const outputs: UpstreamOutput[] = [];
    for (let index = 0; index < task.count; index++) outputs.push(makeOutput(task, index));
    return { state: 'succeeded', outputs };
  },
  async streamChat(chat: ChatTask, _context, onChunk) {
    const prompt = chat.messages.findLast((message) => message.role === 'user')?.content ?? '';
    const seed = createHash('sha256').update(`${prompt}\u0000reply`).digest();
    const words = makeText('', seed).trim().split(' ');
    const pause = Number(chat.config.delay_ms ?? 0) / words.length;
    for (const [index, word] of words.entries()) {
      if (pause > 0) await sleep(pause);
      await onChunk(index === 0 ? word : ` ${word}`);
    }
    return words.join(' ');
  },
};

function makeOutput(task: UpstreamTask, index: number): UpstreamOutput {
  const prompt = String(task.params.prompt ?? '');
  const seed = createHash('sha256').update(`${prompt}\u0000${index}`).digest();
  if (task.kind === 'image') {
    const [width, height] = imageSize(String(task.params.aspect_ratio ?? '1:1'));
    return { bytes: makePng(width, height, seed), contentType: 'image/png' };
  }
  if (task.kind === 'video') {
    const seconds = Number(task.params.duration ?? 5);
    return { bytes: makeGif(96, 96, Math.min(60, Math.max(2, seconds * 4)), seed), contentType: 'image/gif' };
  }
  return { bytes: Buffer.from(makeText(prompt, seed), 'utf8'), contentType: 'text/plain; charset=utf-8' };
}

/** The longer side is 256 pixels; the other follows the aspect ratio. */
function imageSize(aspectRatio: string): [number, number] {
  const [w, h] = aspectRatio.split(':').map(Number) as [number, number];
  const scale = 256 / Math.max(w, h);
  return [Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale))];
}

/** An RGB PNG: a two-colour diagonal gradient with rings, colours taken from the seed. */
export function makePng(width: number, height: number, seed: Buffer): Buffer {
  const rows = Buffer.alloc((width * 3 + 1) * height);
  const cx = width * (0.2 + (seed[6]! / 255) * 0.6);
  const cy = height * (0.2 + (seed[7]! / 255) * 0.6);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    rows[row] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const t = (x + y) / (width + height);
      const ring = Math.sin(Math.hypot(x - cx, y - cy) / (4 + (seed[8]! % 12))) * 0.5 + 0.5;
      for (let c = 0; c < 3; c++) {
        const value = seed[c]! * (1 - t) + seed[c + 3]! * t;
        rows[row + 1 + x * 3 + c] = Math.round(value * (0.6 + 0.4 * ring));
      }
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, deflate, adaptive filters, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A looping GIF89a: a 16-colour palette from the seed and a band pattern that moves each frame. */
export function makeGif(width: number, height: number, frames: number, seed: Buffer): Buffer {
  const palette = Buffer.alloc(16 * 3);
  for (let i = 0; i < 16; i++) {
    const t = i / 15;
    for (let c = 0; c < 3; c++) palette[i * 3 + c] = Math.round(seed[c]! * (1 - t) + seed[c + 3]! * t);
  }
  const parts: Buffer[] = [Buffer.from('GIF89a', 'ascii')];
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen.set([0xf3, 0, 0], 4); // global colour table of 2^(3+1) entries
  parts.push(screen, palette);
  // NETSCAPE2.0 application extension: loop forever.
  parts.push(
    Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'ascii'), 0x03, 0x01, 0x00, 0x00, 0x00]),
  );
  const pixels = new Uint8Array(width * height);
  for (let frame = 0; frame < frames; frame++) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const wave =
          Math.sin((x + frame * 4) / (6 + (seed[9]! % 10))) +
          Math.cos((y - frame * 2) / (5 + (seed[10]! % 10)));
        pixels[y * width + x] = Math.min(15, Math.max(0, Math.round((wave + 2) * 3.75)));
      }
    }
    parts.push(Buffer.from([0x21, 0xf9, 0x04, 0x00, 25, 0x00, 0x00, 0x00])); // 250 ms per frame
    const descriptor = Buffer.alloc(10);
    descriptor[0] = 0x2c;
    descriptor.writeUInt16LE(width, 5);
    descriptor.writeUInt16LE(height, 7);
    parts.push(descriptor, Buffer.from([4]), subBlocks(lzwEncode(pixels, 4)));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

/** GIF's variable-width LZW, bits packed least significant first. */
function lzwEncode(indices: Uint8Array, minCodeSize: number): Buffer {
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  let codeSize = minCodeSize + 1;
  let next = end + 1;
  let table = new Map<number, number>();
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  const emit = (code: number) => {
    buffer |= code << bits;
    bits += codeSize;
    while (bits >= 8) {
      out.push(buffer & 0xff);
      buffer >>>= 8;
      bits -= 8;
    }
  };
  emit(clear);
  let prefix = indices[0]!;
  for (let i = 1; i < indices.length; i++) {
    const pixel = indices[i]!;
    const key = prefix * 256 + pixel;
    const known = table.get(key);
    if (known !== undefined) {
      prefix = known;
      continue;
    }
    emit(prefix);
    if (next < 4096) {
      table.set(key, next++);
      if (next > 1 << codeSize && codeSize < 12) codeSize++;
    } else {
      emit(clear);
      table = new Map();
      next = end + 1;
      codeSize = minCodeSize + 1;
    }
    prefix = pixel;
  }
  emit(prefix);
  emit(end);
  if (bits > 0) out.push(buffer & 0xff);
  return Buffer.from(out);
}

function subBlocks(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += 255) {
    const block = data.subarray(offset, offset + 255);
    parts.push(Buffer.from([block.length]), block);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

const WORDS = [
  'light',
  'river',
  'stone',
  'quiet',
  'ember',
  'north',
  'glass',
  'field',
  'hollow',
  'bright',
  'drift',
  'cedar',
];

function makeText(prompt: string, seed: Buffer): string {
  const words = Array.from(seed.subarray(0, 24), (byte) => WORDS[byte % WORDS.length]);
  const sentences = [0, 8, 16].map((start) => {
    const sentence = words.slice(start, start + 8).join(' ');
    return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
  });
  return `${prompt}\n\n${sentences.join(' ')}\n`;
}
