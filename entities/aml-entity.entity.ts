import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { AML_LISTS, ENTITY_KINDS, type AmlList, type EntityKind } from '../src/domain/aml-lists.js';

/**
 * One listed subject (sanctions, PEP or adverse-media entry) as imported from a list file.
 * Global: every tenant screens against the same rows. The normalised names it is searched by
 * live in `aml_entity_name` (one row per normalised primary name or alias, pg_trgm-indexed),
 * which only `src/engines/aml/store.ts` writes, so it has no entity of its own.
 */
export const AmlEntitySchema = defineEntity({
  name: 'AmlEntity',
  tableName: 'aml_entity',
  properties: {
    /** `SOURCE_LIST:source_id`, the hit's `entity_id`; stable across re-imports of the list. */
    id: p.text().primary(),
    sourceList: p.enum(AML_LISTS).$type<AmlList>(),
    /** The publisher's own id (OFAC uid, EU logicalId, UN DATAID, OpenSanctions id). */
    sourceId: p.text(),
    kind: p.enum(ENTITY_KINDS).$type<EntityKind>(),
    /** Name as listed first, natural order. */
    primaryName: p.text(),
    aliases: p.array(),
    /** `YYYY` or `YYYY-MM-DD` each. */
    datesOfBirth: p.array(),
    /** ISO-2, upper case. */
    countries: p.array(),
    programs: p.array(),
    topics: p.array(),
    /** When the import that wrote this row ran. */
    importedAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ['sourceList', 'sourceId'] }],
});
/** A listed subject row. */
export type AmlEntityRow = InferEntity<typeof AmlEntitySchema>;

/**
 * One import of one list: which file format, how many entities, the file's checksum. Read by
 * ongoing monitoring and operators to see when a list last changed.
 */
export const AmlListImportSchema = defineEntity({
  name: 'AmlListImport',
  tableName: 'aml_list_import',
  properties: {
    id: p.uuid().primary(),
    sourceList: p.enum(AML_LISTS).$type<AmlList>(),
    /** Importer format (`ofac_sdn_xml`, `opensanctions_jsonl`, ...). */
    fileFormat: p.text(),
    /** Entities of this list the import wrote. */
    entityCount: p.integer(),
    /** SHA-256 (hex) of the imported file, so an unchanged re-import can be recognised. */
    checksum: p.text(),
    importedAt: p.datetime().onCreate(() => new Date()),
  },
});
/** A list import row. */
export type AmlListImport = InferEntity<typeof AmlListImportSchema>;

/**
 * One normalised form (normalizeName / nameVariants) of a listed entity's primary name or an
 * alias: what the trigram search matches. `sourceList` is copied here so the list filter needs no join.
 */
export const AmlEntityNameSchema = defineEntity({
  name: 'AmlEntityName',
  tableName: 'aml_entity_name',
  properties: {
    entityId: p.text().primary(),
    sourceList: p.text(),
    nameNormalized: p.text().primary(),
  },
});
/** A listed name row. */
export type AmlEntityName = InferEntity<typeof AmlEntityNameSchema>;

/**
 * A counter bumped by every statement that writes `aml_entity_name`: servers keep the listed names
 * in an in-memory index and stop using it when the counter moves (src/engines/aml/name-index.ts).
 */
export const AmlNameEpochSchema = defineEntity({
  name: 'AmlNameEpoch',
  tableName: 'aml_name_epoch',
  properties: {
    /** Always true: the table holds one row. */
    singleton: p.boolean().primary().default(true),
    epoch: p.bigint('string'),
  },
});
/** The AML name epoch row. */
export type AmlNameEpoch = InferEntity<typeof AmlNameEpochSchema>;

/**
 * Ongoing AML monitoring's outbox: every transaction that writes listed entities records which
 * lists changed, and the re-screening job works through the requests not done yet.
 */
export const AmlRescreenRequestSchema = defineEntity({
  name: 'AmlRescreenRequest',
  tableName: 'aml_rescreen_request',
  properties: {
    id: p.uuid().primary(),
    /** The lists whose entities changed. */
    lists: p.array(),
    requestedAt: p.datetime().defaultRaw('now()'),
    /** When a re-screening run took it; a stale claim is taken again. */
    claimedAt: p.datetime().nullable(),
    doneAt: p.datetime().nullable(),
  },
});
/** An AML re-screen request row. */
export type AmlRescreenRequest = InferEntity<typeof AmlRescreenRequestSchema>;
