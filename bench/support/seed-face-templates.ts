/**
 * Sessions' selfie templates seeded in bulk for bench/growth.ts (issue 29.6: "1M face templates"):
 * the rows the duplicate-face search reads (docs/duplicates.md), as the biometric step leaves them,
 * one live session each (the search only looks at live sessions) with its own `vendor_data`.
 * Sessions are written by `insert … select … from generate_series`, templates from an array of
 * hex (random unit vectors, bench/support/templates.ts, made here in bulk), under the tenant's
 * current key version, so the service's own search reads and matches them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { prng } from './seed-sessions.js';
import { randomTemplateHex } from './templates.js';

/** Sessions and templates per pair of insert statements (10,000 × 512 hex characters: about 5 MB of parameters). */
const TEMPLATE_BATCH = 10_000;
/** Templates whose source vectors are kept, so a probe can be made near one. */
const KEPT_SOURCES = 50;

/** A seeded template's session and the unit vector it was made from. */
export interface PlantedTemplate {
  sessionId: string;
  source: Float64Array;
}

/**
 * Seeds `count` live sessions of the tenant (ids `md5(tag || 'f' || i)`, approved, created one
 * second apart) with a selfie template each; returns the first few with their source vectors.
 * Call `analyze session` and `analyze session_list_subject` afterwards.
 */
export async function seedFaceTemplates(
  em: EntityManager,
  tenantId: string,
  count: number,
  keyVersion: number,
  tag: string,
): Promise<PlantedTemplate[]> {
  if (!/^[a-z]+$/.test(tag)) throw new Error('a seed tag is lower-case letters');
  const random = prng(57 + tag.charCodeAt(0));
  const sources: Float64Array[] = [];
  for (let start = 1; start <= count; start += TEMPLATE_BATCH) {
    const end = Math.min(count, start + TEMPLATE_BATCH - 1);
    const hex = randomTemplateHex(random, end - start + 1, sources, KEPT_SOURCES);
    await em.transactional(async (tx) => {
      await tx.execute(
        `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, warnings, reasons, created_at, updated_at, expires_at, decided_at, furthest_stage)
         select md5(? || i)::uuid, ?, 'live', 'standard_kyc', 'face-' || ? || i, 'approved', '[]', '[]',
                now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval, now() + interval '30 days',
                now() - (i || ' seconds')::interval, 3
           from generate_series(?::int, ?::int) i`,
        [`${tag}f`, tenantId, tag, start, end],
        'run',
      );
      await tx.execute(
        `insert into session_list_subject (session_id, tenant_id, node_type, kind, template, key_version)
         select md5(? || (?::int + n - 1))::uuid, ?, 'biometric_kyc', 'face', decode(hex, 'hex'), ?
           from unnest(?::text[]) with ordinality as input(hex, n)`,
        [`${tag}f`, start, tenantId, keyVersion, `{${hex.join(',')}}`],
        'run',
      );
    });
  }
  if (sources.length === 0) return [];
  const ids = await em.execute<{ id: string }[]>(
    `select md5(? || i)::uuid::text as id from generate_series(1, ?::int) i order by i`,
    [`${tag}f`, sources.length],
    'all',
  );
  return ids.map((row, index) => ({ sessionId: row.id, source: sources[index]! }));
}
