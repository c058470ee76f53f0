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
 * names, each emoji's Unicode name in snake case (`thumbs_up_sign`) and its CLDR short name
 * (`thumbs_up`, from emojibase-data), which most of Zulip's own names and aliases are.
 */
const require = createRequire(import.meta.url);
const data = require('emoji-datasource/emoji.json') as EmojiEntry[];
/** CLDR short names by emojibase's hexcode: uppercase, without the FE0F variation selector. */
const cldr = require('emojibase-data/en/shortcodes/cldr.json') as Record<string, string | string[]>;
const cldrNames = (unified: string): string[] => [cldr[unified.replace(/-FE0F/g, '')] ?? []].flat();

/**
 * Each name and each code to the emoji it belongs to. A name two emoji share is the first one's,
 * short names before the longer ones (so adding a source of names never moves a short name).
 */
const emojiOfName = new Map<string, EmojiEntry>();
const emojiOfCode = new Map<string, EmojiEntry>();
const snakeCase = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
for (const entry of data) {
  const codes = [entry.unified, entry.non_qualified ?? entry.unified];
  for (const variation of Object.values(entry.skin_variations ?? {})) codes.push(variation.unified);
  for (const code of codes) emojiOfCode.set(code.toLowerCase(), entry);
  for (const name of entry.short_names) if (!emojiOfName.has(name)) emojiOfName.set(name, entry);
}
for (const entry of data)
  for (const name of [...(entry.name ? [snakeCase(entry.name)] : []), ...cldrNames(entry.unified)])
    if (!emojiOfName.has(name)) emojiOfName.set(name, entry);

/** The code of a Unicode emoji name, or undefined. */
export const emojiCodeForName = (name: string): string | undefined =>
  emojiOfName.get(name)?.unified.toLowerCase();

/** Whether `code` is a Unicode emoji (a sequence of code points the dataset knows). */
export const isEmojiCode = (code: string): boolean => emojiOfCode.has(code.toLowerCase());

/**
 * Whether `name` is one of the names of the emoji `code` is (Zulip's `check_emoji_request`): a
 * client picks among an emoji's aliases, but a name is never free text stored beside a code.
 */
export const emojiNameMatchesCode = (name: string, code: string): boolean => {
  const emoji = emojiOfName.get(name);
  return emoji !== undefined && emoji === emojiOfCode.get(code.toLowerCase());
};
