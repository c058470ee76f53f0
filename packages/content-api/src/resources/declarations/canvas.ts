import { defineResource } from '../define.ts';
import { graphEdges, graphNodes, name, optionalFileId } from './common.ts';

export const canvas = defineResource({
  name: 'canvas',
  table: 'content.canvases',
  path: '/canvases',
  schemaName: 'Canvas',
  pluralName: 'Canvases',
  description: 'A node/edge document (a generation workflow laid out on a board) inside a project.',
  example: {
    id: '4f1c8a5e-6d7b-4e9f-8a1b-1c2d3e4f5061',
    project_id: '3e0b7f4d-5c6a-4d8e-9f0a-0b1c2d3e4f50',
    name: 'Poster workflow',
    document: {
      nodes: [
        { id: 'prompt-1', type: 'prompt', position: { x: 0, y: 0 }, data: { prompt: 'a red fox in spring' } },
        { id: 'image-1', type: 'image', position: { x: 320, y: 0 }, data: {} },
      ],
      edges: [{ id: 'edge-1', source: 'prompt-1', target: 'image-1' }],
      viewport: { x: 0, y: 0, zoom: 1 },
    },
    thumbnail_file_id: null,
  },
  fields: {
    project_id: {
      schema: {
        type: 'string',
        format: 'uuid',
        description: 'The project it belongs to; one the caller may read.',
      },
      writable: true,
      required: true,
      references: 'project',
      listFilter: true,
    },
    name: { schema: name(), writable: true, required: true },
    document: {
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['nodes', 'edges'],
        properties: {
          nodes: graphNodes,
          edges: graphEdges,
          viewport: {
            type: 'object',
            properties: {
              x: { type: 'number' },
              y: { type: 'number' },
              zoom: { type: 'number', exclusiveMinimum: 0 },
            },
          },
        },
        description: 'The graph; replaced whole on update.',
      },
      writable: true,
    },
    thumbnail_file_id: { schema: optionalFileId('Preview image.'), writable: true, references: 'file' },
  },
});
