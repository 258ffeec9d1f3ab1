/** Writes docs/sandbox.md from the sandbox catalogue; the sandbox test fails when it is stale. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SANDBOX_DOCS_PATH, renderSandboxDocs } from '../src/engines/sandbox/docs.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = resolve(root, SANDBOX_DOCS_PATH);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, renderSandboxDocs());
console.log(`wrote ${SANDBOX_DOCS_PATH}`);
