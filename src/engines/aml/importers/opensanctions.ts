/**
 * OpenSanctions FollowTheMoney entities, one JSON object per line (`entities.ftm.json`,
 * `targets.nested.json` style): `{ id, schema, properties: { name, alias, birthDate, … }, datasets }`.
 *
 * One FtM entity can belong to several of our lists, so it yields one SanctionedEntity per
 * list (same source_id, different source_list). List assignment rules:
 * - topic `sanction`: the list of each dataset in SANCTION_DATASET_LISTS (us_ofac_sdn →
 *   OFAC_SDN, eu_fsf → EU_CONSOLIDATED, un_sc_sanctions → UN_SC). Sanctions only known from
 *   other datasets (UK, Swiss, Canadian… regimes) go to `otherSanctionsList` when given and
 *   are skipped otherwise: labelling a UK designation "OFAC_SDN" would misinform reviewers.
 * - topics `role.pep` / `role.rca` (politically exposed person, relative or close associate) → PEP.
 * - topics in ADVERSE_MEDIA_TOPICS, or starting with `crime.` → ADVERSE_MEDIA.
 * Entities of schemas outside FTM_SCHEMA_KINDS (Address, Sanction, Ownership…) are skipped.
 */
import type { AmlList, EntityKind, SanctionedEntity } from '../entity.js';
import { normalizeDates, textLines, unique, type TextSource } from './common.js';

/** FtM schemas that are screenable subjects, and the kind each maps to. */
export const FTM_SCHEMA_KINDS: Readonly<Record<string, EntityKind>> = {
  Person: 'person',
  Organization: 'organization',
  Company: 'organization',
  LegalEntity: 'organization',
  PublicBody: 'organization',
  Vessel: 'vessel',
  Airplane: 'aircraft',
};

/** OpenSanctions dataset names that are the official source of one of our sanctions lists. */
export const SANCTION_DATASET_LISTS: Readonly<Record<string, AmlList>> = {
  us_ofac_sdn: 'OFAC_SDN',
  eu_fsf: 'EU_CONSOLIDATED',
  un_sc_sanctions: 'UN_SC',
};

/** FtM topics that put an entity on the PEP list. */
export const PEP_TOPICS: ReadonlySet<string> = new Set(['role.pep', 'role.rca']);

/** FtM topics (besides any `crime.*`) that put an entity on the ADVERSE_MEDIA list. */
export const ADVERSE_MEDIA_TOPICS: ReadonlySet<string> = new Set(['crime', 'wanted', 'reg.warn', 'reg.action', 'corp.disqual']);

/** Options of importOpenSanctionsJsonl. */
export interface OpenSanctionsOptions {
  /** List for `sanction` entities from datasets outside SANCTION_DATASET_LISTS; skipped when absent. */
  otherSanctionsList?: AmlList;
}

/** The subset of an FtM entity this importer reads. */
interface FtmEntity {
  id?: unknown;
  schema?: unknown;
  caption?: unknown;
  properties?: Record<string, unknown>;
  datasets?: unknown;
}

/** String values of an FtM property (always a list of strings in FtM; anything else is ignored). */
function values(props: Record<string, unknown> | undefined, name: string): string[] {
  const v = props?.[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Lists an FtM entity belongs to, by the rules in the module comment. */
export function ftmLists(topics: readonly string[], datasets: readonly string[], options: OpenSanctionsOptions = {}): AmlList[] {
  const lists = new Set<AmlList>();
  if (topics.includes('sanction')) {
    const known = datasets.map((d) => SANCTION_DATASET_LISTS[d]).filter((l): l is AmlList => l !== undefined);
    for (const l of known) lists.add(l);
    if (known.length === 0 && options.otherSanctionsList) lists.add(options.otherSanctionsList);
  }
  if (topics.some((t) => PEP_TOPICS.has(t))) lists.add('PEP');
  if (topics.some((t) => ADVERSE_MEDIA_TOPICS.has(t) || t.startsWith('crime.'))) lists.add('ADVERSE_MEDIA');
  return [...lists];
}

/** Maps one parsed FtM entity to zero or more SanctionedEntity records (one per list). */
export function fromFtmEntity(raw: FtmEntity, options: OpenSanctionsOptions = {}): SanctionedEntity[] {
  const kind = typeof raw.schema === 'string' ? FTM_SCHEMA_KINDS[raw.schema] : undefined;
  if (typeof raw.id !== 'string' || !kind) return [];
  const p = raw.properties;
  const first = [values(p, 'firstName')[0], values(p, 'middleName')[0], values(p, 'lastName')[0]].filter(Boolean).join(' ');
  const names = unique([...values(p, 'name'), typeof raw.caption === 'string' ? raw.caption : undefined, first]);
  if (names.length === 0) return [];
  const topics = unique(values(p, 'topics'));
  const datasets = Array.isArray(raw.datasets) ? raw.datasets.filter((d): d is string => typeof d === 'string') : [];
  const lists = ftmLists(topics, datasets, options);
  // FtM country codes are lower-case ISO-2, plus historical codes like "suhh" that we drop.
  const countries = ['nationality', 'citizenship', 'country']
    .flatMap((f) => values(p, f))
    .filter((c) => /^[a-z]{2}$/i.test(c))
    .map((c) => c.toUpperCase());
  const base = {
    source_id: raw.id,
    kind,
    primary_name: names[0],
    // weakAlias is left out on purpose: short nicknames ("The Boss") match far too much.
    aliases: unique([...names.slice(1), ...values(p, 'alias'), ...values(p, 'previousName')]).filter((a) => a !== names[0]),
    dates_of_birth: unique(values(p, 'birthDate').flatMap(normalizeDates)),
    countries: unique(countries),
    programs: unique([...values(p, 'program'), ...values(p, 'programId')]),
    topics,
  };
  return lists.map((source_list) => ({ source_list, ...base, aliases: [...base.aliases] }));
}

/** Streams an FtM JSON-lines file as entities; a malformed line fails the import with its line number. */
export async function* importOpenSanctionsJsonl(source: TextSource, options: OpenSanctionsOptions = {}): AsyncGenerator<SanctionedEntity> {
  let lineNo = 0;
  for await (const line of textLines(source)) {
    lineNo++;
    if (line.trim().length === 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (err) {
      throw new SyntaxError(`OpenSanctions JSONL line ${lineNo}: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object') continue;
    yield* fromFtmEntity(parsed as FtmEntity, options);
  }
}
