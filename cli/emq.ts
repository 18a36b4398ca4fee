#!/usr/bin/env node
// The `emq` bin: built to dist/cli/emq/index.mjs (esbuild keeps this line first).
import { main } from './main.js';

await main();
