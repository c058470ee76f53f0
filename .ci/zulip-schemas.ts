/**
 * Validates the answers a real Zulip client got during a CI run (.ci/zulip-clients.py writes them,
 * one JSON object a line: `{path, method, status, body}` or `{component, body}`) against Zulip's
 * own OpenAPI document, through the messaging API's test helper (the same conversion and the same
 * vendored document as the vitest suites). Prints one line per operation; fails when any answer
 * does not match.
 *
 *   node .ci/zulip-schemas.ts .ci/artifacts/zulip-clients/answers.jsonl
 */
import { readFileSync } from 'node:fs';
import { expectZulipComponent, expectZulipSchema } from '../packages/chat-api/test/zulip-schema.ts';

interface Answer {
  path?: string;
  method?: string;
  status?: string;
  component?: string;
  body: unknown;
}

const file = process.argv[2];
if (!file) throw new Error('usage: node .ci/zulip-schemas.ts <answers.jsonl>');
const answers = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line) as Answer);

const counts = new Map<string, number>();
const failures: string[] = [];
for (const answer of answers) {
  const name = answer.component
    ? `component ${answer.component}`
    : `${answer.method?.toUpperCase()} ${answer.path} ${answer.status ?? '200'}`;
  counts.set(name, (counts.get(name) ?? 0) + 1);
  try {
    if (answer.component) expectZulipComponent(answer.component, answer.body);
    else expectZulipSchema(answer.path ?? '', answer.method ?? '', answer.body, answer.status ?? '200');
  } catch (error) {
    failures.push(
      `${name}: ${(error as Error).message}\n  answer: ${JSON.stringify(answer.body).slice(0, 600)}`,
    );
  }
}
for (const [name, count] of [...counts].sort()) console.log(`  ${name}: ${count}`);
console.log(
  `Zulip's schemas: ${answers.length - failures.length} of ${answers.length} answers (${counts.size} operations) match`,
);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
