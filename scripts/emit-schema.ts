/**
 * Emits schema.graphql from the code-first schema. With `--check`, exits 1 when the file differs
 * from what the code builds (CI's drift check). `--path <file>` targets another file (tests).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { getSchema } from '../src/graphql/schema.js';

const HEADER = '# Emitted by `npm run schema` from the resolvers; do not edit by hand.\n\n';
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, path: { type: 'string' } } });
const schemaPath = values.path ?? new URL('../schema.graphql', import.meta.url).pathname;

const emitted = HEADER + printSchema(lexicographicSortSchema(await getSchema())) + '\n';
if (values.check) {
  let committed = '';
  try {
    committed = readFileSync(schemaPath, 'utf8');
  } catch {
    committed = '';
  }
  if (committed !== emitted) {
    console.error(`${schemaPath} is out of date: run \`npm run schema\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${schemaPath} is up to date.`);
} else {
  writeFileSync(schemaPath, emitted);
  console.log(`${schemaPath} written.`);
}
