import { defineResource } from '../define.ts';
import { graphEdges, graphNodes, name, optionalFileId } from './common.ts';

export const canvas = defineResource({
  name: 'canvas',
  table: 'content.canvases',
  path: '/canvases',
  schemaName: 'Canvas',
  pluralName: 'Canvases',
  description: 'A node/edge document (a generation workflow laid out on a board) inside a project.',
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
