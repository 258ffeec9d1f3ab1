/**
 * Migration20261122000900FaceTemplates on a database that holds v1 face templates (1024 float32):
 * a face entry (as a 4 KB `template`, or on pgvector as `embedding vector(1024)`) and a session's
 * selfie template become v2 templates (256 signed bytes, `v2TemplateOfV1` of the v1 values),
 * fingerprints follow, and the pgvector copy is rebuilt as `vector(256)` under an HNSW index.
 * Then Migration20261125000100H15FaceTemplatesV3 (another face model): the tenant's key moves to
 * the next version, so the v2 entries stay listed but no longer match, and the session's v2
 * selfie template is gone.
 * Runs on a fresh database of its own: in-memory PGlite, or with DATABASE_URL a scratch
 * database on that server (dropped at the end).
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { v2TemplateOfV1 } from '../../src/db/migrations/Migration20261122000900FaceTemplates.js';
import { templateFromBytes } from '../../src/engines/face/index.js';
import { faceIndexMode, matchFaces } from '../../src/lists/face-index.js';
import { openScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

let database: Database;
let scratch: ScratchDatabase | undefined;

/** A random unit vector of 1024 values: what a v1 template is (a secretly rotated embedding). */
function v1Template(seed: number): Float32Array {
  let state = seed;
  // A small linear congruential generator: deterministic, and unrelated vectors for different seeds.
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296 - 0.5;
  const values = Float32Array.from({ length: 1024 }, next);
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
}

/** The 4096 bytes v1 stored: float32 little-endian. */
function v1Bytes(values: Float32Array): Buffer {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes;
}

beforeAll(async () => {
  scratch = await openScratchDatabase('faces_migration', { migrate: false });
  database = scratch.database;
}, 60_000);

afterAll(async () => {
  await scratch?.drop();
});

describe('face templates v1 → v2 → v3 migrations', () => {
  it('given v1 templates in list entries and session subjects, when migrating, then they become the projected 256 bytes with new fingerprints and still match, until template v3 leaves them listed but unmatched', async () => {
    await database.orm.migrator.up({ to: 'Migration20261122000800SessionPortraits' });
    const em = database.orm.em.fork();
    const [vector] = await em.execute<{ has: boolean }[]>(
      `select exists (select 1 from information_schema.columns where table_name = 'list_entry' and column_name = 'embedding') as has`,
      [],
      'all',
    );
    const pgvector = vector!.has;
    const tenantId = randomUUID();
    const listId = randomUUID();
    const sessionId = randomUUID();
    const entries = [randomUUID(), randomUUID()];
    const listed = [v1Template(1), v1Template(2)];
    const selfie = v1Template(1);
    await em.execute(`insert into tenant (id, name, callback_secret, created_at) values (?, 'v1', 'secret', now())`, [tenantId], 'run');
    await em.execute(
      `insert into list (id, tenant_id, name, type, policy) values (?, ?, 'faces', 'face', 'auto_decline')`,
      [listId, tenantId],
      'run',
    );
    for (const [i, id] of entries.entries()) {
      const fingerprint = `sha256:${createHash('sha256').update(v1Bytes(listed[i]!)).digest('hex')}`;
      if (pgvector) {
        await em.execute(
          `insert into list_entry (id, list_id, tenant_id, entry_type, fingerprint, embedding, key_version, added_by) values (?, ?, ?, 'face', ?, ?::vector, 1, 'test')`,
          [id, listId, tenantId, fingerprint, `[${Array.from(listed[i]!).join(',')}]`],
          'run',
        );
      } else {
        await em.execute(
          `insert into list_entry (id, list_id, tenant_id, entry_type, fingerprint, template, key_version, added_by) values (?, ?, ?, 'face', ?, ?, 1, 'test')`,
          [id, listId, tenantId, fingerprint, v1Bytes(listed[i]!)],
          'run',
        );
      }
    }
    await em.execute(
      `insert into workflow (id, name, type, nodes, compliance_level) values ('v1_workflow', 'v1', 'user', '[]', 'basic')`,
      [],
      'run',
    );
    await em.execute(
      `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, expires_at) values (?, ?, 'sandbox', 'v1_workflow', 'v1', 'in_progress', now() + interval '1 day')`,
      [sessionId, tenantId],
      'run',
    );
    await em.execute(
      `insert into session_list_subject (session_id, tenant_id, node_type, kind, template, key_version) values (?, ?, 'biometric_kyc', 'face', ?, 1)`,
      [sessionId, tenantId, v1Bytes(selfie)],
      'run',
    );

    await em.execute(`insert into face_template_key (tenant_id, version, sealed_secret) values (?, 1, 'sealed')`, [tenantId], 'run');

    await database.orm.migrator.up({ to: 'Migration20261122000900FaceTemplates' });

    const rows = await em.execute<{ id: string; fingerprint: string; template: Buffer }[]>(
      'select id, fingerprint, template from list_entry where tenant_id = ? order by id',
      [tenantId],
      'all',
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const expected = v2TemplateOfV1(listed[entries.findIndex((id) => id === row.id)]!);
      expect(templateFromBytes(row.template)).toEqual(expected);
      expect(row.fingerprint).toBe(`sha256:${createHash('sha256').update(row.template).digest('hex')}`);
    }
    const [subject] = await em.execute<{ template: Buffer }[]>(
      'select template from session_list_subject where session_id = ?',
      [sessionId],
      'all',
    );
    const probe = templateFromBytes(subject!.template);
    expect(probe).toEqual(v2TemplateOfV1(selfie));

    const mode = await faceIndexMode(em);
    expect(mode).toBe(pgvector ? 'pgvector' : 'exact');
    if (pgvector) {
      const [column] = await em.execute<{ type: string; indexed: boolean }[]>(
        `select format_type(a.atttypid, a.atttypmod) as type,
                exists (select 1 from pg_indexes where indexname = 'list_entry_embedding_hnsw') as indexed
           from pg_attribute a where a.attrelid = 'list_entry'::regclass and a.attname = 'embedding'`,
        [],
        'all',
      );
      expect(column).toEqual({ type: 'vector(256)', indexed: true });
      const [copy] = await em.execute<{ embedding: string }[]>(
        'select embedding::text as embedding from list_entry where id = ?',
        [entries[0]],
        'all',
      );
      expect(JSON.parse(copy!.embedding)).toEqual(Array.from(v2TemplateOfV1(listed[0]!)));
    }
    // The migrated selfie finds the migrated entry made from the same v1 template, on every path the database has
    // (with the schema of the last release before template v3: matching reads columns added later).
    // The exact scan in SQL here: the in-memory index reads `change_xid`, a column of a later migration.
    await database.orm.migrator.up({ to: 'Migration20261124000500EventSnapshots' });
    for (const path of pgvector ? (['pgvector', 'scan'] as const) : (['scan'] as const)) {
      const matches = await em.transactional((tx) => matchFaces(tx, { tenantId, environment: 'live' }, 1, probe, 0.65, { mode: path }));
      expect(matches.map((match) => match.entryId)).toEqual([entries[0]]);
      expect(matches[0]!.similarity).toBeCloseTo(1, 5);
    }

    await database.orm.migrator.up();
    const [key] = await em.execute<{ version: number }[]>('select version from face_template_key where tenant_id = ?', [tenantId], 'all');
    expect(key!.version).toBe(2);
    const kept = await em.execute<{ id: string }[]>('select id from list_entry where tenant_id = ? order by id', [tenantId], 'all');
    expect(kept.map((row) => row.id)).toEqual([...entries].sort());
    const subjects = await em.execute('select 1 from session_list_subject where session_id = ?', [sessionId], 'all');
    expect(subjects).toHaveLength(0);
    for (const path of pgvector ? (['pgvector', 'exact', 'scan'] as const) : (['exact', 'scan'] as const)) {
      const matches = await em.transactional((tx) => matchFaces(tx, { tenantId, environment: 'live' }, 2, probe, 0.65, { mode: path }));
      expect(matches).toEqual([]);
    }
  }, 120_000);
});
