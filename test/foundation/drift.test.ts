import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const CODEGEN = join(ROOT, 'node_modules/.bin/graphql-codegen');

/** Runs a command in the repository; resolves with its exit code. */
async function exitCode(command: string, args: string[]): Promise<number> {
  try {
    await run(command, args, { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? 1;
  }
}

/** Each case starts the schema emitter or codegen twice, seconds each on a quiet machine, far more on a loaded one. */
const TWO_TOOL_RUNS_MS = 180_000;

describe('schema and codegen drift checks', () => {
  it(
    'given the committed schema, when checking, then it passes; given a stale copy, then it fails',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'schema-drift-'));
      const fresh = join(dir, 'fresh.graphql');
      const stale = join(dir, 'stale.graphql');
      copyFileSync(join(ROOT, 'schema.graphql'), fresh);
      writeFileSync(stale, readFileSync(fresh, 'utf8').replace('type Query {', 'type Query {\n  removedLater: String'));
      expect(await exitCode(TSX, ['scripts/emit-schema.ts', '--check', '--path', fresh])).toBe(0);
      expect(await exitCode(TSX, ['scripts/emit-schema.ts', '--check', '--path', stale])).toBe(1);
    },
    TWO_TOOL_RUNS_MS,
  );

  it(
    'given generated operations edited by hand, when checking codegen, then it fails; given the committed output, then it passes',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'codegen-drift-'));
      const config = readFileSync(join(ROOT, 'codegen.yml'), 'utf8');
      const target = join(dir, 'operations.ts');
      writeFileSync(join(dir, 'codegen.yml'), config.replace('src/graphql/generated/operations.ts', target));
      copyFileSync(join(ROOT, 'src/graphql/generated/operations.ts'), target);
      expect(await exitCode(CODEGEN, ['--config', join(dir, 'codegen.yml'), '--check'])).toBe(0);
      writeFileSync(target, readFileSync(target, 'utf8') + '\nexport const handEdited = true;\n');
      expect(await exitCode(CODEGEN, ['--config', join(dir, 'codegen.yml'), '--check'])).toBe(1);
    },
    TWO_TOOL_RUNS_MS,
  );
});
