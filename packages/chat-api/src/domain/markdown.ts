/** Minimal Markdown: escaped text in a paragraph, which is what clients need to display it. */
export function renderMarkdown(text: string): string {
  if (text === '') return '';
  const escaped = text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
  return `<p>${escaped.replace(/\n/g, '<br>\n')}</p>`;
}
