/**
 * Issue 26 point 3: every table has an entity. Checked against the migrated database itself, so a
 * migration that adds a table or a column without its entity fails here, and so does an entity
 * that names a column the migrations never made: each table of the public schema has exactly one
 * entity, with the same columns, the same nullability, the same primary key and a compatible type.
 * Each entity is then read through the ORM once, so the SQL MikroORM writes for it runs.
 */
import type { EntityMetadata, EntityName, EntityProperty } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_ENTITIES } from '../../entities/index.js';
import { startTestApp, type TestApp } from '../support/app.js';

let testApp: TestApp;

beforeAll(async () => {
  testApp = await startTestApp();
}, 120_000);

afterAll(async () => {
  await testApp?.close();
});

/** Tables no entity stands for: MikroORM's own migration ledger. */
const NOT_OURS = new Set(['mikro_orm_migrations']);
/**
 * Columns that exist only where the database has pgvector (the Lists, FaceTemplates and H22Replay
 * migrations add them when the extension installs): `vector` copies of face templates, SQL only.
 */
const OPTIONAL_COLUMNS = new Set(['list_entry.embedding', 'session_list_subject.embedding']);

/** One column as PostgreSQL describes it. */
interface Column {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

/** PostgreSQL's names of a type (`udt_name`) and the spellings MikroORM's column types use for it. */
const TYPE_FAMILIES: Record<string, string[]> = {
  uuid: ['uuid'],
  text: ['text', 'varchar', 'character varying'],
  varchar: ['varchar', 'character varying', 'text'],
  int4: ['int', 'int4', 'integer'],
  int8: ['bigint', 'int8', 'bigserial'],
  int2: ['smallint', 'int2'],
  bool: ['boolean', 'bool'],
  timestamptz: ['timestamptz', 'timestamp with time zone'],
  jsonb: ['jsonb', 'json'],
  _text: ['text[]'],
  bytea: ['bytea'],
  xid8: ['xid8'],
  float8: ['double precision', 'float8', 'double'],
  float4: ['real', 'float4'],
};

/** The columns an entity's properties map to: scalars and the owning side of relations, with their types. */
function columnsOf(meta: EntityMetadata): { column: string; type: string; nullable: boolean; primary: boolean }[] {
  return Object.values(meta.properties as Record<string, EntityProperty>)
    .filter(
      (prop) => prop.persist !== false && (prop.kind === 'scalar' || prop.kind === 'm:1' || prop.kind === '1:1') && prop.fieldNames?.length,
    )
    .flatMap((prop) =>
      prop.fieldNames.map((column, index) => ({
        column,
        type: (prop.columnTypes?.[index] ?? '').toLowerCase().replace(/\(\d+\)$/, ''),
        nullable: prop.nullable === true,
        primary: prop.primary === true,
      })),
    );
}

describe('entities and tables', () => {
  it('given the migrated database, when its tables are compared with the entities, then every table has exactly one entity with the same columns, nullability, key and types', async () => {
    const em = testApp.app.orm.em.fork();
    const columns = await em.execute<{ table_name: string; column_name: string; udt_name: string; is_nullable: string }[]>(
      `select table_name, column_name, udt_name, is_nullable from information_schema.columns
        where table_schema = 'public' order by table_name, ordinal_position`,
    );
    const keys = await em.execute<{ table_name: string; column_name: string }[]>(
      `select t.relname as table_name, a.attname as column_name
         from pg_index i join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace
         join pg_attribute a on a.attrelid = t.oid and a.attnum = any(i.indkey)
        where n.nspname = 'public' and i.indisprimary`,
    );
    const tables = new Map<string, Column[]>();
    for (const row of columns) {
      if (NOT_OURS.has(row.table_name) || OPTIONAL_COLUMNS.has(`${row.table_name}.${row.column_name}`)) continue;
      const list = tables.get(row.table_name) ?? [];
      list.push({ table: row.table_name, column: row.column_name, type: row.udt_name, nullable: row.is_nullable === 'YES' });
      tables.set(row.table_name, list);
    }

    const metadata = testApp.app.orm.getMetadata();
    const entities = ALL_ENTITIES.map((schema) => metadata.get(schema.meta.class));
    const byTable = new Map<string, EntityMetadata[]>();
    for (const meta of entities) byTable.set(meta.tableName, [...(byTable.get(meta.tableName) ?? []), meta]);

    const problems: string[] = [];
    for (const table of [...tables.keys()].sort()) {
      const owners = byTable.get(table) ?? [];
      if (owners.length !== 1) problems.push(`${table}: ${owners.length} entities`);
    }
    for (const [table, owners] of byTable) {
      if (!tables.has(table)) problems.push(`${owners.map((meta) => meta.className).join(', ')}: table ${table} does not exist`);
    }
    for (const meta of entities) {
      const actual = tables.get(meta.tableName);
      if (!actual) continue;
      const declared = columnsOf(meta);
      const declaredNames = new Set(declared.map((column) => column.column));
      for (const column of actual) {
        if (!declaredNames.has(column.column)) problems.push(`${meta.className}: no property for ${meta.tableName}.${column.column}`);
      }
      for (const column of declared) {
        const found = actual.find((candidate) => candidate.column === column.column);
        if (!found) {
          problems.push(`${meta.className}: ${meta.tableName}.${column.column} does not exist`);
          continue;
        }
        if (found.nullable !== column.nullable) {
          problems.push(
            `${meta.className}: ${column.column} is ${found.nullable ? '' : 'not '}nullable in the table, ${column.nullable ? '' : 'not '}in the entity`,
          );
        }
        const family = TYPE_FAMILIES[found.type];
        if (!family) problems.push(`${meta.className}: ${column.column} has type ${found.type}, unknown to this test`);
        else if (!family.includes(column.type))
          problems.push(`${meta.className}: ${column.column} is ${found.type} in the table, ${column.type} in the entity`);
      }
      const tableKey = keys
        .filter((key) => key.table_name === meta.tableName)
        .map((key) => key.column_name)
        .sort();
      const entityKey = declared
        .filter((column) => column.primary)
        .map((column) => column.column)
        .sort();
      if (tableKey.join() !== entityKey.join())
        problems.push(`${meta.className}: primary key (${entityKey.join()}) against the table's (${tableKey.join()})`);
    }
    expect(problems).toEqual([]);
  });

  it('given every entity, when one row of each is read through the ORM, then the SQL it writes runs', async () => {
    const em = testApp.app.orm.em.fork();
    for (const schema of ALL_ENTITIES) {
      await expect(em.find(schema as EntityName<object>, {}, { limit: 1 }), schema.meta.className).resolves.toBeInstanceOf(Array);
    }
  });
});
