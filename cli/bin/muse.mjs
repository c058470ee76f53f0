#!/usr/bin/env node
// The checkout's `muse` (`npx muse`, `npm install -g ./cli`): the TypeScript sources under Node 24,
// fetched once when this Node is older. The published package's bin is the compiled main.js instead.
import { runTypeScriptBin } from '../../scripts/node24.mjs';

await runTypeScriptBin('muse', new URL('../src/main.ts', import.meta.url));
