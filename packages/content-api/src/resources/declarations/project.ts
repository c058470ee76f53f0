import { defineResource } from '../define.ts';
import { name, optionalFileId, text } from './common.ts';

export const project = defineResource({
  name: 'project',
  table: 'content.projects',
  path: '/projects',
  schemaName: 'Project',
  description: 'A workspace that groups canvases.',
  fields: {
    name: { schema: name(), writable: true, required: true },
    description: { schema: text(2000, 'What the project is about.'), writable: true },
    cover_file_id: { schema: optionalFileId('Cover image.'), writable: true, references: 'file' },
  },
});
