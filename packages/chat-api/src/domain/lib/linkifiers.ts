import type { Sequelize } from '@muse/core';
import safeRegex from 'safe-regex2';
import { JsonableError } from '../errors.ts';
import { rows, type Transaction } from '@muse/core';
import type { Realm } from './realms.ts';

/**
 * Linkifiers (Zulip's realm filters): an organization's patterns that the Markdown renderer turns
 * into links (lib/markdown.ts), in their `order`. A pattern is Zulip's regular expression syntax
 * (`(?P<name>…)` groups); a URL template is RFC 6570 level 1 and 2 (`{name}`, `{+name}`) over
 * the pattern's named groups.
 */
export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

/** A linkifier ready for the renderer. */
export interface CompiledLinkifier {
  regex: RegExp;
  template: string;
}

const MAX_PATTERN_LENGTH = 1000;
const EXPRESSION = /\{(\+?)([A-Za-z0-9_]+)\}/g;

export async function realmLinkifiers(db: Sequelize, realmId: number, t?: Transaction): Promise<Linkifier[]> {
  return rows<Linkifier>(
    db,
    'SELECT id, pattern, url_template FROM chat.linkifiers WHERE realm_id = :realmId ORDER BY "order", id',
    { realmId },
    t,
  );
}

/** Each database's organizations' compiled linkifiers, with the `linkifiers_version` they are of. */
const compiledByDatabase = new WeakMap<
  Sequelize,
  Map<number, { version: number; compiled: CompiledLinkifier[] }>
>();

/**
 * The organization's linkifiers ready for the renderer. Read once per version: the realm row each
 * request reads carries the version, so a change made by any process is seen by the next message.
 */
export async function compiledLinkifiers(
  db: Sequelize,
  realm: Pick<Realm, 'id' | 'linkifiers_version'>,
  t?: Transaction,
): Promise<CompiledLinkifier[]> {
  let realms = compiledByDatabase.get(db);
  if (!realms) compiledByDatabase.set(db, (realms = new Map()));
  const cached = realms.get(realm.id);
  if (cached?.version === realm.linkifiers_version) return cached.compiled;
  const compiled = (await realmLinkifiers(db, realm.id, t)).map(compileLinkifier);
  realms.set(realm.id, { version: realm.linkifiers_version, compiled });
  return compiled;
}

/** Python's named groups in JavaScript's spelling; the regular expression finds every match. */
function toRegExp(pattern: string): RegExp {
  return new RegExp(pattern.replace(/\(\?P</g, '(?<'), 'gu');
}

/** As Zulip: a match starts after whitespace, a quote, `(`, `,`, `:` or `<` (or at the start) and ends before a non-word character. */
export function compileLinkifier(linkifier: Linkifier): CompiledLinkifier {
  const inner = toRegExp(linkifier.pattern).source;
  return {
    regex: new RegExp(`(?<![^\\s'"(,:<])(?:${inner})(?!\\w)`, 'gu'),
    template: linkifier.url_template,
  };
}

/**
 * Refuses a pattern that is not a regular expression, or one whose matching time can explode
 * (nested quantifiers: the renderer runs it over every message), and a URL template that is not an
 * http(s) URL, uses other expressions, or names a group the pattern does not have.
 */
export function validateLinkifier(pattern: string, urlTemplate: string): void {
  if (pattern === '' || [...pattern].length > MAX_PATTERN_LENGTH)
    throw new JsonableError(`Invalid linkifier pattern: it must have 1 to ${MAX_PATTERN_LENGTH} characters.`);
  let regex: RegExp;
  try {
    regex = toRegExp(pattern);
  } catch (error) {
    throw new JsonableError(`Bad regular expression: ${(error as Error).message}`);
  }
  if (!safeRegex(regex))
    throw new JsonableError('Invalid linkifier pattern: nested repetition could make matching too slow.');
  if (!/^https?:\/\/[^\s]+$/.test(urlTemplate)) throw new JsonableError('Invalid URL template.');
  const groups = new Set([...pattern.matchAll(/\(\?P?<([A-Za-z0-9_]+)>/g)].map((m) => m[1]));
  const unsupported = urlTemplate.replace(EXPRESSION, '');
  if (/[{}]/.test(unsupported)) throw new JsonableError('Invalid URL template.');
  for (const [, , name] of urlTemplate.matchAll(EXPRESSION))
    if (!groups.has(name))
      throw new JsonableError(`Group "${name}" in URL template is not present in linkifier pattern.`);
}

/** The URL for one match: `{name}` percent-encoded, `{+name}` with reserved characters kept (RFC 6570). */
export function expandTemplate(template: string, groups: Record<string, string | undefined>): string {
  return template.replace(EXPRESSION, (_all, plus: string, name: string) => {
    const value = groups[name] ?? '';
    return plus ? encodeURI(value) : encodeURIComponent(value);
  });
}
