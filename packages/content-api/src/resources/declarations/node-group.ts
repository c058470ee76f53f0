import { defineResource } from '../define.ts';
import { graphEdges, graphNodes, name, text } from './common.ts';

export const nodeGroup = defineResource({
  name: 'node_group',
  table: 'content.node_groups',
  path: '/node-groups',
  schemaName: 'NodeGroup',
  description: 'A reusable group of canvas nodes and their edges, to drop into any canvas.',
  example: {
    id: '6b3e0c7a-8f9d-4a1b-8c3d-3e4f50617283',
    name: 'Prompt to image',
    description: 'A prompt feeding an image generation.',
    nodes: [
      { id: 'prompt-1', type: 'prompt', position: { x: 0, y: 0 }, data: { prompt: '' } },
      { id: 'image-1', type: 'image', position: { x: 320, y: 0 }, data: {} },
    ],
    edges: [{ id: 'edge-1', source: 'prompt-1', target: 'image-1' }],
  },
  fields: {
    name: { schema: name(), writable: true, required: true },
    description: { schema: text(2000, 'What the group does.'), writable: true },
    nodes: { schema: graphNodes, writable: true },
    edges: { schema: graphEdges, writable: true },
  },
});
