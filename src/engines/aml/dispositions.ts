/**
 * The engine side of AML hit dispositions (docs/console.md "AML hits"): who was screened (a keyed
 * digest), which record of an entity a reviewer saw (a digest of it), the false positives standing
 * for a person, and the hits ongoing monitoring adds to a reopened session. The reviewer's side
 * (marking a hit, its audit, a session's own screening) is src/sessions/aml-dispositions.ts.
 *
 * Raw SQL: (b) the latest ruling per entity is a `distinct on` read.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantScope } from '../../auth/context.js';
import { openPersonalData, sealPersonalData } from '../../auth/personal-data.js';
import type { ServiceSecrets } from '../../auth/secrets.js';
import type { AmlSubject, StoredAmlHit, StoredAmlScreeningDetails } from '../details.js';
import { storedDetails } from '../stored-details.js';
import { detailsHit } from './engine.js';
import type { SanctionedEntity } from './entity.js';
import { normalizeName } from './normalize.js';
import { riskBand, type AmlHit as ScreeningHit } from './score.js';

/** The `entity_id` of a hit of the node details. */
export function hitEntityId(hit: Pick<StoredAmlHit, 'list' | 'entry_id'>): string {
  return `${hit.list}:${hit.entry_id}`;
}

/** The keyed digest of whom a screening screened: the same person typed differently (case, accents, spaces) digests the same. */
export function amlSubjectHash(secrets: ServiceSecrets, subject: AmlSubject): string {
  return secrets.amlSubjectDigest(
    [normalizeName(subject.full_name), subject.date_of_birth ?? '', (subject.country ?? '').toUpperCase()].join('\u0000'),
  );
}

/** A listed entity's record, as the case shows it. */
export interface AmlEntityRecord {
  id: string;
  sourceList: string;
  sourceId: string;
  kind: string;
  primaryName: string;
  aliases: string[];
  datesOfBirth: string[];
  countries: string[];
  programs: string[];
  topics: string[];
  importedAt: Date;
  /** SHA-256 (hex) of the record's content: a re-import that changes a name, a date, a country or a programme changes it. */
  version: string;
}

/** The version of an entity no list holds (a sandbox hit, or an entity since removed from its list). */
function unlistedVersion(entityId: string): string {
  return createHash('sha256').update(`unlisted\u0000${entityId}`).digest('hex');
}

/** The listed records of some entities, by id; ids no list holds are left out. */
export async function amlEntityRecords(em: EntityManager, entityIds: readonly string[]): Promise<Map<string, AmlEntityRecord>> {
  if (entityIds.length === 0) return new Map();
  const rows = await em.execute<(SanctionedEntity & { id: string; imported_at: Date })[]>(
    `select id, source_list, source_id, kind, primary_name, aliases, dates_of_birth, countries, programs, topics, imported_at
       from aml_entity where id in (?)`,
    [[...new Set(entityIds)]],
  );
  const sorted = (values: string[] | null) => [...(values ?? [])].sort();
  return new Map(
    rows.map((row) => {
      const content = [
        row.kind,
        row.primary_name,
        sorted(row.aliases),
        sorted(row.dates_of_birth),
        sorted(row.countries),
        sorted(row.programs),
        sorted(row.topics),
      ];
      return [
        row.id,
        {
          id: row.id,
          sourceList: row.source_list,
          sourceId: row.source_id,
          kind: row.kind,
          primaryName: row.primary_name,
          aliases: row.aliases ?? [],
          datesOfBirth: row.dates_of_birth ?? [],
          countries: row.countries ?? [],
          programs: row.programs ?? [],
          topics: row.topics ?? [],
          importedAt: new Date(row.imported_at),
          version: createHash('sha256').update(JSON.stringify(content)).digest('hex'),
        },
      ];
    }),
  );
}

/** The current version of each entity (its record's digest, or the unlisted version). */
export async function entityVersions(em: EntityManager, entityIds: readonly string[]): Promise<Map<string, string>> {
  const records = await amlEntityRecords(em, entityIds);
  return new Map(entityIds.map((id) => [id, records.get(id)?.version ?? unlistedVersion(id)]));
}

/** A standing false positive of a person and an entity: whether it still holds, and its row. */
export interface FalsePositiveStanding {
  dispositionId: string;
  /** True while the entity's record is the one the reviewer saw: the hit is not raised again. */
  holds: boolean;
}

/**
 * The false positives standing for one person (scope and subject) and some entities: for each
 * entity whose latest disposition for that person is "false positive", whether it still holds
 * (the entity's record unchanged since). Entities without one are left out.
 */
export async function standingFalsePositives(
  em: EntityManager,
  secrets: ServiceSecrets,
  scope: TenantScope,
  subject: AmlSubject,
  entityIds: readonly string[],
): Promise<Map<string, FalsePositiveStanding>> {
  if (entityIds.length === 0) return new Map();
  const rows = await em.execute<{ id: string; entity_id: string; entity_hash: string; disposition: string }[]>(
    `select distinct on (entity_id) id, entity_id, entity_hash, disposition from aml_hit_disposition
      where tenant_id = ? and environment = ? and subject_hash = ? and entity_id in (?)
      order by entity_id, created_at desc, id`,
    [scope.tenantId, scope.environment, amlSubjectHash(secrets, subject), [...new Set(entityIds)]],
  );
  const falsePositives = rows.filter((row) => row.disposition === 'false_positive');
  if (falsePositives.length === 0) return new Map();
  const versions = await entityVersions(
    em,
    falsePositives.map((row) => row.entity_id),
  );
  return new Map(
    falsePositives.map((row) => [row.entity_id, { dispositionId: row.id, holds: versions.get(row.entity_id) === row.entity_hash }]),
  );
}

/** The AML node details of a session, or null when it has none with a subject. */
export async function amlDetailsOf(em: EntityManager, sessionId: string): Promise<Partial<StoredAmlScreeningDetails> | null> {
  const [row] = await em.execute<{ details: Partial<StoredAmlScreeningDetails> }[]>(
    `select details from session_node_result where session_id = ? and node_type = 'aml_screening'`,
    [sessionId],
  );
  return row ? openPersonalData<Partial<StoredAmlScreeningDetails>>(em, row.details) : null;
}

/** What a reviewer asks: which hit of which session, what they say of it, and why. */
/**
 * Adds the hits ongoing monitoring found to a reopened session's AML result (a hit of the same
 * entity is replaced), marked `found_by: monitoring`, and scores the result again; the node status
 * stays (the session is in review for them). Through the reopening's transaction.
 */
export async function recordMonitoringHits(tx: EntityManager, sessionId: string, found: readonly ScreeningHit[]): Promise<void> {
  const details = await amlDetailsOf(tx, sessionId);
  if (!details || found.length === 0) return;
  const foundAt = new Date().toISOString();
  const added: StoredAmlHit[] = found.map((hit) => ({ ...storedDetails(detailsHit(hit)), found_by: 'monitoring', found_at: foundAt }));
  const ids = new Set(found.map((hit) => hit.entityId));
  const hits = [...(details.hits ?? []).filter((hit) => !ids.has(hitEntityId(hit))), ...added].sort((a, b) => b.score - a.score);
  const score = Math.max(0, ...hits.map((hit) => hit.score));
  const suppressed = (details.suppressed_hits ?? []).filter((hit) => !ids.has(hitEntityId(hit)));
  await tx.execute(
    `update session_node_result set details = ?::jsonb, updated_at = now() where session_id = ? and node_type = 'aml_screening'`,
    [
      JSON.stringify(
        sealPersonalData(tx, {
          ...details,
          hits,
          score,
          risk_band: riskBand(score),
          ...(details.suppressed_hits ? { suppressed_hits: suppressed } : {}),
        }),
      ),
      sessionId,
    ],
    'run',
  );
}
