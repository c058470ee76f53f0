import { createRequire } from 'node:module';

interface EmojiEntry {
  name: string | null;
  unified: string;
  non_qualified: string | null;
  short_names: string[];
  skin_variations?: Record<string, { unified: string }>;
}

/**
 * Unicode emoji from iamcal's emoji-datasource (the data Zulip's own emoji sets come from).
 * Codes are Zulip's: lowercase hex code points joined by '-'. Names are the dataset's short
 * names and each emoji's Unicode name in snake case (`thumbs_up_sign`).
 */
const data = createRequire(import.meta.url)('emoji-datasource/emoji.json') as EmojiEntry[];

const codeOf = new Map<string, string>();
const codes = new Set<string>();
for (const entry of data) {
  const code = entry.unified.toLowerCase();
  codes.add(code);
  if (entry.non_qualified) codes.add(entry.non_qualified.toLowerCase());
  for (const variation of Object.values(entry.skin_variations ?? {}))
    codes.add(variation.unified.toLowerCase());
  const names = [...entry.short_names];
  if (entry.name)
    names.push(
      entry.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, ''),
    );
  for (const name of names) if (!codeOf.has(name)) codeOf.set(name, code);
}

/** The code of a Unicode emoji name, or undefined. */
export const emojiCodeForName = (name: string): string | undefined => codeOf.get(name);

/** Whether `code` is a Unicode emoji (a sequence of code points the dataset knows). */
export const isEmojiCode = (code: string): boolean => codes.has(code.toLowerCase());
