import { readFileSync } from 'node:fs';

/**
 * The platform's version, @muse/server's own (lerna versions every package together): its
 * package.json is two folders up from the sources (src/commands/) and three from the image's
 * compiled output (dist/src/commands/).
 */
export function museVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === '@muse/server' && manifest.version) return manifest.version;
    } catch {
      // Not this one: the other layout.
    }
  }
  throw new Error('the package.json of @muse/server was not found beside its code');
}
