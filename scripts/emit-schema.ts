/**
 * Emits schema.graphql from the code-first schema. With `--check`, exits 1 when the committed
 * file differs from what the code builds (CI's drift check).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { getSchema } from '../src/graphql/schema.js';

const SCHEMA_PATH = new URL('../schema.graphql', import.meta.url);
const HEADER = '# Emitted by `npm run schema` from the resolvers; do not edit by hand.\n\n';

const emitted = HEADER + printSchema(lexicographicSortSchema(await getSchema())) + '\n';
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(SCHEMA_PATH, 'utf8');
  } catch {
    committed = '';
  }
  if (committed !== emitted) {
    console.error('schema.graphql is out of date: run `npm run schema` and commit the result.');
    process.exit(1);
  }
  console.log('schema.graphql is up to date.');
} else {
  writeFileSync(SCHEMA_PATH, emitted);
  console.log('schema.graphql written.');
}
