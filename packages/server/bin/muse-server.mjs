#!/usr/bin/env node
// The checkout's `muse-server` (`npx muse-server …`): the TypeScript sources under Node 24, fetched
// once when this Node is older. The image links the compiled dist/src/main.js instead.
import { runTypeScriptBin } from '../../../scripts/node24.mjs';

await runTypeScriptBin('muse-server', new URL('../src/main.ts', import.meta.url));
