/**
 * Sessions seeded in bulk for the benches that need a large tenant (bench/search.ts,
 * bench/growth.ts): rows written by batched `insert … select … from generate_series`, not through
 * the API, so a million take minutes, not hours. Names, digests and statuses are deterministic.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Rows per seeding statement. */
export const SEED_BATCH = 50_000;

/** A deterministic generator (mulberry32), so every run seeds the same names. */
export function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A pronounceable synthetic name of 4–9 letters, alternating consonants and vowels. */
function syntheticName(random: () => number): string {
  const consonants = 'bcdfghjklmnprstvwz';
  const vowels = 'aeiouy';
  const length = 4 + Math.floor(random() * 6);
  let name = '';
  for (let i = 0; i < length; i += 1) {
    const letters = i % 2 === 0 ? consonants : vowels;
    name += letters[Math.floor(random() * letters.length)];
  }
  return name;
}

const random = prng(25);
/** 3,000 given names × 30,000 family names: every seeded name is a pair of them. */
export const GIVEN_NAMES = Array.from({ length: 3_000 }, () => syntheticName(random));
/** See {@link GIVEN_NAMES}. */
export const FAMILY_NAMES = Array.from({ length: 30_000 }, () => syntheticName(random));

/** The name seeded for session number `i` (as `session_search` holds it: lower case, given first). */
export function seededName(i: number): string {
  return `${GIVEN_NAMES[i % GIVEN_NAMES.length]} ${FAMILY_NAMES[Math.floor(i / GIVEN_NAMES.length) % FAMILY_NAMES.length]}`;
}

/** The `vendor_data` of seeded session number `i`. */
export function seededVendorData(i: number): string {
  return `cust-${String(i).padStart(8, '0')}`;
}

/** What {@link seedSessions} writes besides the session rows. */
export interface SeedOptions {
  /**
   * Mixed statuses with their history, as a tenant's sessions are after months of use: one in
   * ten in review (with `review_entered_at`), one in ten pending, one in ten declined, the rest
   * approved, each with one `session_status_change` row per status it went through. Without it
   * every session is `approved` and has no history (the search bench's shape).
   */
  lifecycle?: boolean;
  /** Distinguishes the ids of tenants seeded in one database (`md5(tag || i)`); `s` by default. */
  tag?: string;
}

/**
 * Seeds sessions number `from` to `to` (inclusive) of one tenant's sandbox, with their search
 * rows: ids `md5(tag || i)` (tag `s` unless {@link SeedOptions.tag} says otherwise), `vendor_data` {@link seededVendorData}, names {@link seededName},
 * created one second apart going back from now. Call `analyze` on the tables afterwards.
 */
export async function seedSessions(
  em: EntityManager,
  tenantId: string,
  from: number,
  to: number,
  options: SeedOptions = {},
): Promise<void> {
  const status = options.lifecycle
    ? `case i % 10 when 0 then 'in_review' when 1 then 'pending' when 2 then 'declined' else 'approved' end`
    : `'approved'`;
  const tag = options.tag ?? 's';
  if (!/^[a-z]+$/.test(tag)) throw new Error('a seed tag is lower-case letters');
  for (let start = from; start <= to; start += SEED_BATCH) {
    const end = Math.min(to, start + SEED_BATCH - 1);
    await em.execute(
      `insert into session (id, tenant_id, environment, workflow_id, vendor_data, status, warnings, reasons, created_at, updated_at, expires_at, decided_at, review_entered_at, furthest_stage)
       select md5('${tag}' || i)::uuid, ?, 'sandbox', 'standard_kyc', 'cust-' || lpad(i::text, 8, '0'), ${status}, '[]', '[]',
              now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval, now() + interval '30 days',
              case when ${status} in ('approved', 'declined') then now() - (i || ' seconds')::interval end,
              case when ${status} = 'in_review' then now() - (i || ' seconds')::interval end,
              case ${status} when 'pending' then 0 when 'in_review' then 2 else 3 end
         from generate_series(?::int, ?::int) i`,
      [tenantId, start, end],
      'run',
    );
    await em.execute(
      `insert into session_search (session_id, tenant_id, environment, name_normalized, exact_tokens)
       select md5('${tag}' || i)::uuid, ?, 'sandbox',
              (?::text[])[1 + i % ?] || ' ' || (?::text[])[1 + (i / ?) % ?],
              array['e:' || left(md5('e' || i), 22), 'p:' || left(md5('p' || i), 22), 'd:' || left(md5('d' || i), 22)]
         from generate_series(?::int, ?::int) i`,
      [
        tenantId,
        `{${GIVEN_NAMES.join(',')}}`,
        GIVEN_NAMES.length,
        `{${FAMILY_NAMES.join(',')}}`,
        GIVEN_NAMES.length,
        FAMILY_NAMES.length,
        start,
        end,
      ],
      'run',
    );
    if (options.lifecycle) {
      // pending (created), then in_progress, then the final status for those that moved on.
      await em.execute(
        `insert into session_status_change (id, session_id, tenant_id, from_status, to_status, actor, created_at)
         select md5('${tag}c' || i || ':' || step)::uuid, md5('${tag}' || i)::uuid, ?, previous, next, 'system', now() - (i || ' seconds')::interval
           from generate_series(?::int, ?::int) i,
                lateral (values (0, null::text, 'pending'), (1, 'pending', 'in_progress'), (2, 'in_progress', ${status})) as steps(step, previous, next)
          where step = 0 or (step = 1 and i % 10 <> 1) or (step = 2 and i % 10 <> 1)`,
        [tenantId, start, end],
        'run',
      );
    }
  }
}
