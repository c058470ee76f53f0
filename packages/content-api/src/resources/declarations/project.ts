import { defineResource } from '../define.ts';
import { name, optionalFileId, text } from './common.ts';

export const project = defineResource({
  name: 'project',
  table: 'content.projects',
  path: '/projects',
  schemaName: 'Project',
  description: 'A workspace that groups canvases.',
  example: {
    id: '3e0b7f4d-5c6a-4d8e-9f0a-0b1c2d3e4f50',
    name: 'Spring campaign',
    description: 'Posters and a short clip for the spring launch.',
    cover_file_id: null,
  },
  fields: {
    name: { schema: name(), writable: true, required: true },
    description: { schema: text(2000, 'What the project is about.'), writable: true },
    cover_file_id: { schema: optionalFileId('Cover image.'), writable: true, references: 'file' },
  },
});
