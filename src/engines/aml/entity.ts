/**
 * The plain record every AML list is imported into and every screen runs over.
 * Kept free of I/O and ORM concerns so a PostgreSQL table (one row per entity, with a
 * pg_trgm index over normalised names) can store it as-is and hand rows back to `screen()`.
 */

import type { AmlList, EntityKind } from '../../domain/aml-lists.js';

// The vocabulary lives in the domain (the entities use it too); re-exported for the engine's importers.
export { AML_LISTS, ENTITY_KINDS, isAmlList, type AmlList, type EntityKind } from '../../domain/aml-lists.js';

/** One listed subject from one list, in list-independent shape. */
export interface SanctionedEntity {
  /** The list the subject came from; `(source_list, source_id)` is the natural key. */
  source_list: AmlList;
  /** The publisher's own identifier (OFAC uid, EU logicalId, UN DATAID, OpenSanctions id), to trace a hit back. */
  source_id: string;
  /** Person, organisation, vessel…; lets callers ignore e.g. vessels when screening a person. */
  kind: EntityKind;
  /** The name the publisher lists first, in natural order ("First Last"); shown as the hit's `name`. */
  primary_name: string;
  /** Other spellings, a.k.a.s and original-script names, matched like the primary name. */
  aliases: string[];
  /** Known dates of birth, each `YYYY` (year only known) or `YYYY-MM-DD`; used to confirm or refute a name match. */
  dates_of_birth: string[];
  /** ISO 3166-1 alpha-2 codes of nationality, citizenship or address, upper case; a weak match signal. */
  countries: string[];
  /** Sanctions programmes / regimes (e.g. OFAC `SDGT`, EU `IRQ`, UN list type), reported in hits. */
  programs: string[];
  /** Risk topics (OpenSanctions vocabulary: `sanction`, `role.pep`, `crime`…), reported in hits. */
  topics: string[];
}

/** Stable id of an entity across imports (`OFAC_SDN:1234`), used as a hit's `entity_id`. */
export function entityId(entity: Pick<SanctionedEntity, 'source_list' | 'source_id'>): string {
  return `${entity.source_list}:${entity.source_id}`;
}
