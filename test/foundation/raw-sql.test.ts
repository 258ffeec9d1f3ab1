/**
 * The rule of docs/design.md ("Raw SQL: when and how") over the source tree: the ORM is the
 * default, and a file under `src/` or `resolvers/` that still sends SQL of its own
 * (`.execute(`) says why in its top TSDoc block, with a line `Raw SQL: <reason>` naming the bench
 * that measured the hot path or the statement the ORM cannot say. Migrations are exempt.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** A call that sends SQL through MikroORM's connection: `em.execute(…)`, `tx.execute<Row[]>(…)`. */
const EXECUTE = /\.execute\s*(<|\()/;

/**
 * Files whose every raw statement is a plain read or write the ORM can say and that are not
 * converted yet. The list only shrinks: a converted file must leave it (the test fails while it
 * stays), and no file may join it.
 */
const NOT_YET_CONVERTED = new Set<string>([]);

/** Files the rule does not cover: migrations (DDL by nature) and generated code. */
const EXEMPT = /\/(migrations|generated)\//;

/** The TypeScript files of the server and its resolvers (the browser apps send no SQL). */
function serverFiles(): string[] {
  return ['src', 'resolvers'].flatMap((root) =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => `${entry.parentPath}/${entry.name}`)
      .filter((path) => !EXEMPT.test(path) && !path.startsWith('src/web/')),
  );
}

/** The file's opening TSDoc block (before its first import or statement), or '' when it has none. */
function headerOf(source: string): string {
  const match = /^\s*(\/\*\*[\s\S]*?\*\/)/.exec(source);
  return match?.[1] ?? '';
}

/** Why a file breaks the rule, or null when it keeps it. */
function violation(source: string): string | null {
  if (!EXECUTE.test(source)) return null;
  const reason = /Raw SQL:\s*(\S[^\n]*)/.exec(headerOf(source))?.[1];
  if (!reason) return 'calls .execute( without a "Raw SQL:" line in its top TSDoc block';
  return null;
}

describe('raw SQL', () => {
  it('given the server and resolver files, when one sends raw SQL, then its top TSDoc block says why with "Raw SQL:"', () => {
    const broken = serverFiles()
      .filter((path) => !NOT_YET_CONVERTED.has(path))
      .map((path) => ({ path, why: violation(readFileSync(path, 'utf8')) }))
      .filter((file) => file.why !== null)
      .map((file) => `${file.path}: ${file.why}`);
    expect(broken).toEqual([]);
  });

  it('given the files not yet converted, when checked, then each still sends raw SQL without a reason (a converted one leaves the list)', () => {
    const stale = [...NOT_YET_CONVERTED].filter((path) => {
      const source = readFileSync(path, 'utf8');
      return !EXECUTE.test(source) || /Raw SQL:/.test(headerOf(source));
    });
    expect(stale).toEqual([]);
  });

  it('given sample files, when checked, then a raw call without a header fails and one with it, or none at all, passes', () => {
    const call = "await em.execute('select 1');";
    expect(violation(`/** Reads. */\nimport x from 'y';\n${call}`)).not.toBeNull();
    expect(violation(`import x from 'y';\n/** Raw SQL: (b) set_config. */\n${call}`)).not.toBeNull();
    expect(violation(`/**\n * Reads.\n *\n * Raw SQL: (b) set_config, which the ORM cannot say.\n */\n${call}`)).toBeNull();
    expect(violation(`/** Reads. */\nawait em.find(Entity, {});`)).toBeNull();
  });
});
