import { defineResource } from '../define.ts';
import { graphEdges, graphNodes, name, text } from './common.ts';

export const nodeGroup = defineResource({
  name: 'node_group',
  table: 'content.node_groups',
  path: '/node-groups',
  schemaName: 'NodeGroup',
  description: 'A reusable group of canvas nodes and their edges, to drop into any canvas.',
  fields: {
    name: { schema: name(), writable: true, required: true },
    description: { schema: text(2000, 'What the group does.'), writable: true },
    nodes: { schema: graphNodes, writable: true },
    edges: { schema: graphEdges, writable: true },
  },
});
