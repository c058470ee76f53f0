/**
 * Types a browser only displays or plays: images (but not SVG or any other `+xml`, which run
 * script), audio, video, plain text and a few document formats. Anything else a user stored
 * (text/html, image/svg+xml, JavaScript, XML, types not known here) is served as opaque bytes.
 */
const INERT_TYPES =
  /^((image|audio|video)\/[\w.-]+|text\/(plain|csv|markdown)|application\/(pdf|json|zip|octet-stream))$/;

/**
 * The headers of every response that serves user-supplied contents (both APIs' uploads and
 * generation results) from the API's own origin: a type a browser will not run as a page or
 * script, no sniffing of another one, and a CSP that sandboxes the response and loads nothing
 * should a browser render it anyway.
 */
export function uploadedContentHeaders(storedType: string): Record<string, string> {
  const essence = storedType.split(';')[0]!.trim().toLowerCase();
  return {
    'Content-Type': INERT_TYPES.test(essence) ? storedType : 'application/octet-stream',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'X-Content-Type-Options': 'nosniff',
  };
}
