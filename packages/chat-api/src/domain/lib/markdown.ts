import MarkdownIt, { type StateCore, type StateInline, type Token } from 'markdown-it';
import { expandTemplate, type CompiledLinkifier } from './linkifiers.ts';
import { emojiCodeForName } from './emoji.ts';

/** Names a message may refer to, resolved before rendering (see lib/mentions.ts). */
export interface MarkdownContext {
  /** By lowercased full name (when unambiguous), and by `|id`. */
  users: Map<string, { id: number; full_name: string }>;
  /** By lowercased name. */
  groups: Map<string, { id: number; name: string }>;
  /** By lowercased name. */
  streams: Map<string, { id: number; name: string }>;
  /** The organization's linkifiers, in order (lib/linkifiers.ts). */
  linkifiers?: CompiledLinkifier[];
}

export type Wildcard = 'channel' | 'topic';

/** What the rendered text mentions (silent mentions and code left out): what sets flags. */
export interface RenderedMentions {
  userIds: Set<number>;
  groupIds: Set<number>;
  wildcard: Wildcard | undefined;
}

type Env = Record<string, unknown> & {
  context: MarkdownContext;
  mentions: RenderedMentions;
};

const CHANNEL_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const slug = (id: number, name: string) =>
  `${id}-${encodeURIComponent(name.replace(/ /g, '-')).replace(/%/g, '.')}`;

/**
 * Zulip's inline syntax: `@**Name**`, `@**Name|id**`, silent `@_**…**`, wildcards, `@*group*`,
 * `#**channel**`, `#**channel>topic**`, `:emoji:`. Unknown names stay plain text, as in Zulip.
 */
function zulipInline(state: StateInline, silentMode: boolean): boolean {
  const src = state.src.slice(state.pos);
  const env = state.env as Env;
  const match =
    /^@(_?)\*\*([^*\n]+)\*\*/.exec(src) ??
    /^@(_?)\*([^*\n]+)\*/.exec(src) ??
    /^#\*\*([^*\n]+)\*\*/.exec(src) ??
    /^:([a-z0-9_+-]+):/.exec(src);
  if (!match) return false;
  const html = renderReference(match, env);
  if (html === undefined) return false;
  if (!silentMode) {
    const token = state.push('html_inline', '', 0);
    token.content = html;
  }
  state.pos += match[0].length;
  return true;
}

function renderReference(match: RegExpExecArray, env: Env): string | undefined {
  const text = match[0];
  const { context, mentions } = env;
  if (text.startsWith(':')) {
    const name = match[1] ?? '';
    const code = emojiCodeForName(name);
    if (!code) return undefined;
    return `<span aria-label="${escape(name.replace(/_/g, ' '))}" class="emoji emoji-${code}" role="img" title="${escape(name.replace(/_/g, ' '))}">:${escape(name)}:</span>`;
  }
  if (text.startsWith('#')) {
    const [channelName = '', topic] = (match[1] ?? '').split('>');
    const stream = context.streams.get(channelName.toLowerCase());
    if (!stream) return undefined;
    if (topic === undefined)
      return `<a class="stream" data-stream-id="${stream.id}" href="/#narrow/channel/${slug(stream.id, stream.name)}">#${escape(stream.name)}</a>`;
    return `<a class="stream-topic" data-stream-id="${stream.id}" href="/#narrow/channel/${slug(stream.id, stream.name)}/topic/${encodeURIComponent(topic).replace(/%/g, '.')}">#${escape(stream.name)} &gt; ${escape(topic)}</a>`;
  }
  const silent = match[1] === '_';
  const name = match[2] ?? '';
  const at = silent ? '' : '@';
  const silentClass = silent ? ' silent' : '';
  if (text.startsWith(`@${match[1]}**`)) {
    const key = name.toLowerCase();
    if (CHANNEL_WILDCARDS.has(key)) {
      if (!silent) mentions.wildcard = 'channel';
      return `<span class="user-mention${silentClass}" data-user-id="*">${at}${escape(name)}</span>`;
    }
    if (key === 'topic') {
      if (!silent) mentions.wildcard ??= 'topic';
      return `<span class="topic-mention${silentClass}">${at}${escape(name)}</span>`;
    }
    const byId = /\|(\d+)$/.exec(key)?.[1];
    const user = context.users.get(byId ? `|${byId}` : key);
    if (!user) return undefined;
    if (!silent) mentions.userIds.add(user.id);
    return `<span class="user-mention${silentClass}" data-user-id="${user.id}">${at}${escape(user.full_name)}</span>`;
  }
  const group = context.groups.get(name.toLowerCase());
  if (!group) return undefined;
  if (!silent) mentions.groupIds.add(group.id);
  return `<span class="user-group-mention${silentClass}" data-user-group-id="${group.id}">${at}${escape(group.name)}</span>`;
}

/** Pygments' display names, which Zulip puts in `data-code-language`, for common languages. */
const LANGUAGE_NAMES: Record<string, string> = {
  py: 'Python',
  python: 'Python',
  js: 'JavaScript',
  javascript: 'JavaScript',
  ts: 'TypeScript',
  typescript: 'TypeScript',
  sh: 'Bash',
  bash: 'Bash',
  json: 'JSON',
  sql: 'SQL',
  html: 'HTML',
  css: 'CSS',
  go: 'Go',
  rust: 'Rust',
  java: 'Java',
  c: 'C',
  cpp: 'C++',
  yaml: 'YAML',
  text: 'Text only',
};

/** The earliest linkifier match in `text` from `from` (the first linkifier wins a tie), with its URL. */
function nextLinkifierMatch(
  text: string,
  from: number,
  linkifiers: CompiledLinkifier[],
): { index: number; text: string; url: string } | undefined {
  let best: { index: number; text: string; url: string } | undefined;
  for (const linkifier of linkifiers) {
    linkifier.regex.lastIndex = from;
    const match = linkifier.regex.exec(text);
    if (match && match[0] !== '' && (!best || match.index < best.index))
      best = {
        index: match.index,
        text: match[0],
        url: expandTemplate(linkifier.template, match.groups ?? {}),
      };
  }
  return best;
}

/**
 * Zulip's linkifiers: in a message's text outside links and code, each match of an organization's
 * pattern becomes a link to its URL template (a core rule, after markdown-it's own links).
 */
function linkifierRule(state: StateCore): void {
  const linkifiers = (state.env as Env).context.linkifiers;
  if (!linkifiers?.length) return;
  const text = (content: string) => Object.assign(new state.Token('text', '', 0), { content });
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children: Token[] = [];
    let insideLink = 0;
    for (const token of block.children) {
      if (token.type === 'link_open') insideLink += 1;
      if (token.type === 'link_close') insideLink -= 1;
      if (token.type !== 'text' || insideLink > 0) {
        children.push(token);
        continue;
      }
      let pos = 0;
      for (let found = nextLinkifierMatch(token.content, 0, linkifiers); found;) {
        if (found.index > pos) children.push(text(token.content.slice(pos, found.index)));
        const open = new state.Token('link_open', 'a', 1);
        open.attrs = [['href', found.url]];
        children.push(open, text(found.text), new state.Token('link_close', 'a', -1));
        pos = found.index + found.text.length;
        found = nextLinkifierMatch(token.content, pos, linkifiers);
      }
      if (pos < token.content.length) children.push(pos === 0 ? token : text(token.content.slice(pos)));
    }
    block.children = children;
  }
}

function createRenderer(): InstanceType<typeof MarkdownIt> {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
  md.inline.ruler.before('emphasis', 'zulip_reference', zulipInline);
  md.core.ruler.push('zulip_linkifiers', linkifierRule);
  const fence: NonNullable<typeof md.renderer.rules.fence> = (tokens, idx, _options, env) => {
    const token = tokens[idx];
    if (!token) return '';
    const info = token.info.trim();
    const [language = '', ...rest] = info.split(/\s+/);
    if (language === 'spoiler') {
      const header = rest.join(' ');
      const content = md.render(token.content, env);
      return (
        `<div class="spoiler-block"><div class="spoiler-header">${header ? md.render(header, env) : ''}</div>` +
        `<div class="spoiler-content" aria-hidden="true">${content}</div></div>\n`
      );
    }
    const named = LANGUAGE_NAMES[language.toLowerCase()] ?? language;
    const attribute = language ? ` data-code-language="${escape(named)}"` : '';
    return `<div class="codehilite"${attribute}><pre><span></span><code>${escape(token.content)}</code></pre></div>\n`;
  };
  md.renderer.rules.fence = fence;
  md.renderer.rules.code_block = fence;
  return md;
}

const renderer = createRenderer();

const emptyContext = (): MarkdownContext => ({ users: new Map(), groups: new Map(), streams: new Map() });

/**
 * Zulip-flavoured Markdown to HTML (markdown-it, raw HTML escaped, unsafe link schemes refused),
 * with what it mentions. Names are looked up in `context`; without one, mentions stay text.
 */
export function renderZulipMarkdown(
  text: string,
  context: MarkdownContext = emptyContext(),
): { html: string; mentions: RenderedMentions } {
  const mentions: RenderedMentions = { userIds: new Set(), groupIds: new Set(), wildcard: undefined };
  if (text === '') return { html: '', mentions };
  const html = renderer.render(text, { context, mentions } satisfies Env).trimEnd();
  return { html, mentions };
}

/** Markdown to HTML for descriptions and profile fields (no names to resolve). */
export function renderMarkdown(text: string): string {
  return renderZulipMarkdown(text).html;
}
