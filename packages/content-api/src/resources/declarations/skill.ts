import { defineResource } from '../define.ts';
import { name, tags, text } from './common.ts';

export const skill = defineResource({
  name: 'skill',
  table: 'content.skills',
  path: '/skills',
  schemaName: 'Skill',
  description: 'A reusable ability a character or canvas can use: instructions plus the parameters it takes.',
  example: {
    id: '5a2d9b6f-7e8c-4f0a-9b2c-2d3e4f506172',
    name: 'Summarize',
    description: 'Shortens a text to a few sentences.',
    instructions: 'Summarize the text in at most {sentences} sentences.',
    parameters: { type: 'object', properties: { sentences: { type: 'integer', minimum: 1 } } },
    tags: ['writing'],
  },
  fields: {
    name: { schema: name(), writable: true, required: true },
    description: { schema: text(2000, 'What the skill does.'), writable: true },
    instructions: { schema: text(20000, 'The prompt that carries out the skill.'), writable: true },
    parameters: {
      schema: { type: 'object', description: 'JSON Schema of the parameters the skill takes.' },
      writable: true,
    },
    tags: { schema: tags, writable: true },
  },
});
