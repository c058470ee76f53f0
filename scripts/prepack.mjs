// The `prepack` of @muse/sdk and @muse/cli: `node ../scripts/prepack.mjs <folder…>`.
// The published package is the folder's dist/ (compiled JavaScript and declarations), not the folder
// with its TypeScript sources: `npm pack`/`npm publish` run in sdk/ or cli/ would ship the sources, so
// they are refused with the commands that make the package. Lerna's publish (publishConfig.directory)
// runs this too, and packs dist/ itself: then it builds the folders, under Node 24.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { node24Directory, runAndExit } from './node24.mjs';

const folders = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const command = process.env.npm_command;

if (command === 'pack' || command === 'publish') {
  const dists = folders.map((folder) => `./${folder}/dist`).join(' ');
  console.error(
    `${process.env.npm_package_name ?? 'this package'} is published from its compiled dist/, not from its sources. ` +
      `From the repository's root: npm run build -- ${folders.join(' ')} && npm ${command} ${dists}`,
  );
  process.exit(1);
}
const node = path.join(node24Directory(`the build of ${folders.join(' ')}`), 'node');
runAndExit(node, [path.join(here, 'build.ts'), ...folders], process.env);
