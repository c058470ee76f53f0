import type { JsonSchema } from '../define.ts';

/** Field schemas several resources share. */
export const text = (maxLength: number, description: string): JsonSchema => ({
  type: 'string',
  maxLength,
  description,
});

export const name = (description = 'Display name.'): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description,
});

export const tags: JsonSchema = {
  type: 'array',
  maxItems: 20,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 32 },
  description: 'Free-form labels for search and grouping.',
};

export const optionalFileId = (description: string): JsonSchema => ({
  type: ['string', 'null'],
  format: 'uuid',
  description: `${description} A file the caller may read (their own or a public one); null clears it.`,
});

/** A node of a node/edge graph document (canvases, node groups). */
export const graphNodes: JsonSchema = {
  type: 'array',
  maxItems: 2000,
  items: {
    type: 'object',
    required: ['id', 'type'],
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 100 },
      type: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
        description: 'Node kind, e.g. prompt, image, video, text, character.',
      },
      position: {
        type: 'object',
        required: ['x', 'y'],
        properties: { x: { type: 'number' }, y: { type: 'number' } },
      },
      data: { type: 'object', description: 'Node-specific settings and results (e.g. a prompt, a file id).' },
    },
  },
  description: 'The nodes of the graph.',
};

export const graphEdges: JsonSchema = {
  type: 'array',
  maxItems: 5000,
  items: {
    type: 'object',
    required: ['id', 'source', 'target'],
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 100 },
      source: { type: 'string', minLength: 1, maxLength: 100, description: 'Id of the source node.' },
      target: { type: 'string', minLength: 1, maxLength: 100, description: 'Id of the target node.' },
      source_handle: { type: 'string', maxLength: 100 },
      target_handle: { type: 'string', maxLength: 100 },
    },
  },
  description: 'Connections between nodes.',
};
