/**
 * List entries seeded in bulk for bench/growth.ts (issue 29.6: "100k list entries"): three custom
 * lists of one tenant's sandbox, one per type (name, document, face), a third of the entries each,
 * written by `insert … select … from generate_series` (face templates from arrays of hex), not
 * through the API. Name and document fingerprints are SHA-256 hashes of a numbered text (the gate
 * compares fingerprints only); face entries carry random unit templates (bench/support/templates.ts)
 * under the tenant's current key version, with the fingerprint the service gives a face entry.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { faceIndexMode } from '../../src/lists/face-index.js';
import { prng } from './seed-sessions.js';
import { randomTemplateHex } from './templates.js';

/** Face entries per insert statement (10,000 × 512 hex characters: about 5 MB of parameters). */
const FACE_BATCH = 10_000;
/** Entries per insert statement for names and documents. */
const ENTRY_BATCH = 50_000;
/** Face entries whose source vectors are kept, so a probe can be made near one. */
const KEPT_SOURCES = 20;

/** The fingerprint seeded for name or document entry number `i` (as `session_list_subject` or a document probe would carry it). */
export function seededEntryFingerprint(kind: 'name' | 'document', i: number): string {
  return `sha256:${createHash('sha256').update(`bench-${kind}|${i}`, 'utf8').digest('hex')}`;
}

/** What {@link seedListEntries} made: the three lists, and the source vectors of the first face entries. */
export interface SeededLists {
  listIds: Record<'name' | 'document' | 'face', string>;
  /** Entries of each list (the name and document lists' entries are numbered 1 to this). */
  perList: number;
  /** Unit vectors the first face entries' templates were made from: a probe near one matches it. */
  faceSources: Float64Array[];
}

/**
 * Seeds `count` entries (a multiple of three is exact; the rest is dropped) into three new custom
 * lists of the tenant's sandbox. Entries are added one second apart, oldest first. Call `analyze
 * list_entry` afterwards.
 */
export async function seedListEntries(
  em: EntityManager,
  tenantId: string,
  count: number,
  keyVersion: number,
  tag: string,
): Promise<SeededLists> {
  if (!/^[a-z]+$/.test(tag)) throw new Error('a seed tag is lower-case letters');
  const perList = Math.floor(count / 3);
  const listIds = { name: '', document: '', face: '' };
  for (const type of ['name', 'document', 'face'] as const) {
    const [row] = await em.execute<{ id: string }[]>(
      `insert into list (id, tenant_id, environment, name, type, policy, built_in)
       values (md5(? || ?)::uuid, ?, 'sandbox', ?, ?, 'review', false) returning id`,
      [`${tag}list`, type, tenantId, `bench ${type}s`, type],
      'all',
    );
    listIds[type] = row!.id;
  }
  for (const type of ['name', 'document'] as const) {
    for (let start = 1; start <= perList; start += ENTRY_BATCH) {
      const end = Math.min(perList, start + ENTRY_BATCH - 1);
      await em.execute(
        `insert into list_entry (id, list_id, tenant_id, environment, entry_type, fingerprint, added_by, added_at)
         select md5(? || i)::uuid, ?, ?, 'sandbox', ?, 'sha256:' || encode(sha256(convert_to(? || i, 'UTF8')), 'hex'),
                'api_key:bench', now() - ((?::int - i) || ' seconds')::interval
           from generate_series(?::int, ?::int) i`,
        [`${tag}${type}`, listIds[type], tenantId, type, `bench-${type}|`, perList, start, end],
        'run',
      );
    }
  }
  // The pgvector copy where the database has one (PGlite), so the gate's index path sees the entries.
  const withVector = (await faceIndexMode(em)) === 'pgvector';
  const embedding = withVector
    ? `, (select array_agg(case when get_byte(decode(hex, 'hex'), b) > 127 then get_byte(decode(hex, 'hex'), b) - 256
                                else get_byte(decode(hex, 'hex'), b) end order by b)
          from generate_series(0, 255) b)::real[]::vector`
    : '';
  const random = prng(91 + tag.charCodeAt(0));
  const faceSources: Float64Array[] = [];
  for (let start = 1; start <= perList; start += FACE_BATCH) {
    const hex = randomTemplateHex(random, Math.min(FACE_BATCH, perList - start + 1), faceSources, KEPT_SOURCES);
    await em.execute(
      `insert into list_entry (id, list_id, tenant_id, environment, entry_type, fingerprint, template, key_version, added_by, added_at${withVector ? ', embedding' : ''})
       select md5(? || (?::int + n - 1))::uuid, ?, ?, 'sandbox', 'face', 'sha256:' || encode(sha256(decode(hex, 'hex')), 'hex'),
              decode(hex, 'hex'), ?, 'api_key:bench', now() - ((?::int - (?::int + n - 1)) || ' seconds')::interval${embedding}
         from unnest(?::text[]) with ordinality as input(hex, n)`,
      [`${tag}face`, start, listIds.face, tenantId, keyVersion, perList, start, `{${hex.join(',')}}`],
      'run',
    );
  }
  return { listIds, perList, faceSources };
}
