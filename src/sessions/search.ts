/**
 * Session search for the console (docs/design.md "Session search"): one box that finds a tenant's
 * sessions, in the caller's environment, by name (read from the document or typed), e-mail, phone,
 * document number, session id or `vendor_data`.
 *
 * - Names are kept normalised (AML normaliser: lower-case ASCII tokens, accents and titles gone)
 *   in `session_search.name_normalized` and matched by pg_trgm word similarity (`<%`, GIN), so a
 *   misspelt or partial name still finds the session. The same names already sit in clear in the
 *   node results and the typed details; erasure removes this copy with them.
 * - E-mail, phone and document numbers are matched exactly on keyed digests (`exact_tokens`):
 *   HMAC-SHA256 under a per-tenant random secret sealed by the master key
 *   (`session_search_key`), so this table holds no readable copy of them, a digest of one tenant
 *   says nothing about another's, and a master key rotation re-wraps the secret like any other.
 * - `vendor_data` is matched in `session` itself: exactly, or as a substring through a trigram
 *   index; a session id by its full value or a prefix of eight or more hex digits (a range on the
 *   primary key).
 *
 * Rows are written when a session is created with contact or expected details and after every
 * step input (a decision-flow observer), read back from what was stored.
 *
 * Raw SQL: (b) pg_trgm word similarity (`<%`) with `set_config`, a `text[]` upsert (`on conflict …
 * do update`) and the backfill's anti-join batches.
 */
import { createHmac, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContactDetails, ExpectedDetails } from '../../entities/session.entity.js';
import type { TenantScope } from '../auth/context.js';
import { openPersonalData, sealedRandomKey, type SealedKeyTable } from '../auth/personal-data.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { documentNumberKey, normalizeName } from '../engines/aml/normalize.js';
import { validationError } from '../shared/errors.js';
import type { Services } from '../services.js';
import type { InputObservation, NodeInputObserver } from './decision-hooks.js';
import { SESSION_COLUMNS, sessionRecordFromRow, type SessionRecord, type SessionRow } from './session-record.js';

/** Hits one search returns when no `first` is given. */
export const SESSION_SEARCH_DEFAULT = 25;
/** Most hits one search may return: a search is for finding someone, not for paging through everyone. */
export const SESSION_SEARCH_MAX = 100;
/** Longest query accepted, in characters (a full name with middle names, an e-mail address). */
export const SESSION_SEARCH_QUERY_MAX = 200;
/** Fewest hex digits of a session id prefix: shorter prefixes would match thousands of ids. */
const SESSION_ID_PREFIX_MIN = 8;
/** Characters of a keyed digest kept (base64url of 132 bits): collisions stay out of reach, the index stays small. */
const DIGEST_CHARS = 22;

/** What a hit matched on, as the console shows it. */
export const SEARCH_FIELDS = ['name', 'email', 'phone', 'document_number', 'session_id', 'vendor_data'] as const;
/** One of {@link SEARCH_FIELDS}. */
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** The exact fields kept as keyed digests, and the letter their digests start with. */
const EXACT_KINDS = { email: 'e', phone: 'p', document_number: 'd' } as const satisfies Partial<Record<SearchField, string>>;
type ExactKind = keyof typeof EXACT_KINDS;

/** One session found, with the fields it matched on, best match first. */
export interface SessionSearchHit {
  session: SessionRecord;
  matchedOn: SearchField[];
}

/** The tenants' search secrets: random, sealed by the master key, one per tenant. */
const SEARCH_KEYS: SealedKeyTable = { table: 'session_search_key', idColumn: 'tenant_id', keyColumn: 'sealed_secret' };

/** The tenant's search secret, created on first use (race-safe), cached for the life of the process. */
function searchKey(em: EntityManager, secrets: ServiceSecrets, tenantId: string): Promise<KeyObject> {
  return sealedRandomKey(em, secrets, SEARCH_KEYS, tenantId);
}

/** An e-mail address as stored and searched: trimmed, NFKC, lower case; null when it is not one. */
export function emailKey(value: string): string | null {
  const email = value.normalize('NFKC').trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+$/.test(email) ? email : null;
}

/** A phone number as stored and searched: `+` and digits (`00` read as `+`); null below 6 digits. */
export function phoneKey(value: string): string | null {
  const trimmed = value.normalize('NFKC').trim();
  if (!/^[+\d][\d\s().-]*$/.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, '');
  if (digits.length < 6) return null;
  return `+${trimmed.startsWith('00') ? digits.slice(2) : digits}`;
}

/** A document number as stored and searched: the list fingerprint's key (case, spaces, lookalikes folded); null unless 4+ characters with a digit. */
export function documentKey(value: string): string | null {
  const key = documentNumberKey(value);
  return key.length >= 4 && /\d/.test(key) ? key : null;
}

/** The keyed digest of one exact value: its kind's letter, then the truncated HMAC. */
function digest(key: KeyObject, kind: ExactKind, value: string): string {
  return `${EXACT_KINDS[kind]}:${createHmac('sha256', key).update(`${kind}\0${value}`).digest('base64url').slice(0, DIGEST_CHARS)}`;
}

/** What a session offers to search, gathered from its typed details and its node results. */
interface Searchable {
  names: string[];
  emails: string[];
  phones: string[];
  documentNumbers: string[];
}

/** The searchable values of a session's stored data (typed details and node-result details). */
function searchableOf(
  contact: ContactDetails | null,
  expected: ExpectedDetails | null,
  nodes: { node_type: string; details: Record<string, any> }[],
): Searchable {
  const found: Searchable = { names: [], emails: [], phones: [], documentNumbers: [] };
  const fullName = (first: unknown, last: unknown) => [first, last].filter((part) => typeof part === 'string' && part).join(' ');
  if (contact?.email) found.emails.push(contact.email);
  if (contact?.phone) found.phones.push(contact.phone);
  if (expected) found.names.push(fullName(expected.first_name, expected.last_name));
  for (const { node_type: type, details } of nodes) {
    if (type === 'document_verification') {
      const extracted = details.extracted ?? {};
      found.names.push(fullName(extracted.first_name, extracted.last_name), fullName(extracted.first_name_viz, extracted.last_name_viz));
      if (typeof extracted.document_number === 'string') found.documentNumbers.push(extracted.document_number);
    } else if (type === 'aml_screening') {
      for (const subject of [details.subject, details.submitted_data])
        if (typeof subject?.full_name === 'string') found.names.push(subject.full_name);
    } else if (type === 'phone_verification' && typeof details.phone === 'string') found.phones.push(details.phone);
  }
  return found;
}

/** The row's two searchable columns: distinct normalised names, and the keyed digests. */
function searchColumns(key: KeyObject, found: Searchable): { name: string; tokens: string[] } {
  const names = new Set(found.names.filter(Boolean).map(normalizeName).filter(Boolean));
  const tokens = new Set<string>();
  const add = (kind: ExactKind, normalise: (value: string) => string | null, values: string[]) => {
    for (const value of values) {
      const normal = normalise(value);
      if (normal) tokens.add(digest(key, kind, normal));
    }
  };
  add('email', emailKey, found.emails);
  add('phone', phoneKey, found.phones);
  add('document_number', documentKey, found.documentNumbers);
  return { name: [...names].join(' '), tokens: [...tokens] };
}

/** Writes (or replaces) one session's search row. */
async function upsertRow(em: EntityManager, sessionId: string, scope: TenantScope, columns: { name: string; tokens: string[] }) {
  await em.execute(
    `insert into session_search (session_id, tenant_id, environment, name_normalized, exact_tokens)
     values (?, ?, ?, ?, ?::text[])
     on conflict (session_id) do update
       set name_normalized = excluded.name_normalized, exact_tokens = excluded.exact_tokens, updated_at = now()`,
    [sessionId, scope.tenantId, scope.environment, columns.name, `{${columns.tokens.join(',')}}`],
    'run',
  );
}

/** Indexes a new session from what its creator typed; nothing is written when it typed nothing searchable. */
export async function indexNewSession(
  em: EntityManager,
  secrets: ServiceSecrets,
  session: { id: string; tenantId: string; environment: TenantScope['environment'] },
  contact: ContactDetails | null,
  expected: ExpectedDetails | null,
): Promise<void> {
  const found = searchableOf(contact, expected, []);
  if (!found.emails.length && !found.phones.length && !found.names.some(Boolean)) return;
  const key = await searchKey(em, secrets, session.tenantId);
  await upsertRow(em, session.id, session, searchColumns(key, found));
}

/** Re-indexes a session from what is stored for it now (typed details and every node result). */
export async function reindexSession(em: EntityManager, secrets: ServiceSecrets, sessionId: string): Promise<void> {
  const [row] = await em.execute<
    {
      tenant_id: string;
      environment: TenantScope['environment'];
      contact_details: ContactDetails | null;
      expected_details: ExpectedDetails | null;
      nodes: { node_type: string; details: Record<string, any> }[];
    }[]
  >(
    `select s.tenant_id, s.environment, s.contact_details, s.expected_details,
            coalesce((select jsonb_agg(jsonb_build_object('node_type', r.node_type, 'details', r.details))
                        from session_node_result r where r.session_id = s.id), '[]'::jsonb) as nodes
       from session s where s.id = ?`,
    [sessionId],
    'all',
  );
  if (!row) return;
  const key = await searchKey(em, secrets, row.tenant_id);
  const nodes = (typeof row.nodes === 'string' ? (JSON.parse(row.nodes) as typeof row.nodes) : row.nodes).map((node) => ({
    node_type: node.node_type,
    details: openPersonalData(em, node.details),
  }));
  await upsertRow(
    em,
    sessionId,
    { tenantId: row.tenant_id, environment: row.environment },
    searchColumns(
      key,
      searchableOf(
        openPersonalData<ContactDetails | null>(em, row.contact_details),
        openPersonalData<ExpectedDetails | null>(em, row.expected_details),
        nodes,
      ),
    ),
  );
}

/**
 * Indexes every session that has no search row yet: sessions created before search existed (run
 * once after the upgrade, `npm run cli -- search:reindex`; running it again finds nothing to do).
 * Returns how many sessions it indexed.
 */
export async function backfillSessionSearch(em: EntityManager, secrets: ServiceSecrets, batchSize = 500): Promise<number> {
  let indexed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await em.execute<{ id: string }[]>(
      `select s.id from session s
        where s.id > ? and not exists (select 1 from session_search x where x.session_id = s.id)
        order by s.id limit ?`,
      [after, batchSize],
      'all',
    );
    if (rows.length === 0) return indexed;
    for (const row of rows) await reindexSession(em, secrets, row.id);
    indexed += rows.length;
    after = rows[rows.length - 1]!.id;
  }
}

/** The decision-flow observer that re-indexes a session once a step's result is stored (names and numbers read from a document). */
export const indexSearchOnInput: NodeInputObserver = async (_em, services: Services, session): Promise<InputObservation> => {
  return (tx) => reindexSession(tx, services.secrets, session.id);
};

/** The lowest and highest uuid starting with a hex prefix (dashes ignored), or null when it is no such prefix. */
export function sessionIdRange(query: string): [string, string] | null {
  const hex = query.toLowerCase().replace(/-/g, '');
  if (hex.length < SESSION_ID_PREFIX_MIN || hex.length > 32 || !/^[0-9a-f]+$/.test(hex)) return null;
  const format = (digits: string) =>
    `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${digits.slice(20)}`;
  return [format(hex.padEnd(32, '0')), format(hex.padEnd(32, 'f'))];
}

/** `%`, `_` and `\` escaped for a LIKE pattern. */
function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * Sessions of the scope matching `query`, best match first (exact fields and ids before fuzzy
 * names and partial vendor data, then newest). One SQL statement in a transaction of its own (plus,
 * once per tenant and process, the read of its search secret). An empty query is refused (VALIDATION_ERROR).
 */
export async function searchSessions(
  em: EntityManager,
  secrets: ServiceSecrets,
  scope: TenantScope,
  rawQuery: string,
  first = SESSION_SEARCH_DEFAULT,
): Promise<SessionSearchHit[]> {
  const query = rawQuery.normalize('NFKC').trim();
  if (!query)
    throw validationError([{ field: 'query', code: 'required', message: 'Type what to search for.' }], 'Type what to search for.');
  if (query.length > SESSION_SEARCH_QUERY_MAX)
    throw validationError(
      [{ field: 'query', code: 'too_long', message: `At most ${SESSION_SEARCH_QUERY_MAX} characters.` }],
      `The search is at most ${SESSION_SEARCH_QUERY_MAX} characters.`,
    );
  if (!Number.isInteger(first) || first < 1 || first > SESSION_SEARCH_MAX)
    throw validationError(
      [{ field: 'first', code: 'out_of_range', message: `Between 1 and ${SESSION_SEARCH_MAX}.` }],
      `first must be between 1 and ${SESSION_SEARCH_MAX}.`,
    );
  const key = await searchKey(em, secrets, scope.tenantId);
  const own = 'tenant_id = ? and environment = ?';
  const ownParams = [scope.tenantId, scope.environment];
  const branches: string[] = [];
  const params: unknown[] = [];
  // Exact values first: each kind whose normal form the query has.
  for (const [kind, normalise] of [
    ['email', emailKey],
    ['phone', phoneKey],
    ['document_number', documentKey],
  ] as const) {
    const normal = normalise(query);
    if (!normal) continue;
    branches.push(
      `select session_id as id, '${kind}' as field, 2.0::float8 as score from session_search where ${own} and exact_tokens @> ?::text[]`,
    );
    params.push(...ownParams, `{${digest(key, kind, normal)}}`);
  }
  const idRange = sessionIdRange(query);
  if (idRange) {
    branches.push(`select id, 'session_id' as field, 2.0::float8 as score from session where ${own} and id between ? and ?`);
    params.push(...ownParams, ...idRange);
  }
  branches.push(`select id, 'vendor_data' as field, 2.0::float8 as score from session where ${own} and vendor_data = ?`);
  params.push(...ownParams, query);
  // A substring of three or more characters goes through the trigram index; shorter ones would scan.
  if (query.length >= 3) {
    branches.push(
      `select id, 'vendor_data' as field, 1.0::float8 + similarity(vendor_data, ?) as score from session where ${own} and vendor_data ilike ? and vendor_data <> ?`,
    );
    params.push(query, ...ownParams, `%${likeEscaped(query)}%`, query);
  }
  // Names have letters and no digits or @: an e-mail, a phone or an id skips the name index.
  const name = /\p{L}/u.test(query) && !/[\d@]/.test(query) ? normalizeName(query) : '';
  if (name.length >= 3) {
    branches.push(
      `select session_id as id, 'name' as field, word_similarity(?, name_normalized)::float8 as score from session_search where ${own} and ? <% name_normalized`,
    );
    params.push(name, ...ownParams, name);
  }
  // In a short transaction of its own so the planner setting is SET LOCAL, never session-wide (on
  // PGlite every connection shares one session): the planner underestimates what pg_trgm costs per
  // row and scans tables of up to ~50k rows instead of using the trigram indexes (as in
  // src/engines/aml/store.ts); the scan was 5–10 times slower in bench/search.ts.
  const rows = await em.transactional(async (tx) => {
    await tx.execute(`select set_config('enable_seqscan', 'off', true)`);
    return tx.execute<(SessionRow & { fields: SearchField[] | string; score: number })[]>(
      `with hits as (${branches.join(' union all ')}),
          best as (select id, array_agg(distinct field) as fields, max(score) as score from hits group by id)
     select ${SESSION_COLUMNS.split(',')
       .map((column) => `s.${column.trim()}`)
       .join(', ')}, best.fields, best.score
       from best join session s on s.id = best.id
      order by best.score desc, s.created_at desc, s.id desc
      limit ?`,
      [...params, first],
      'all',
    );
  });
  return rows.map((row) => ({ session: sessionRecordFromRow(row, em), matchedOn: fieldsOf(row.fields) }));
}

/** An aggregated text array as a list of fields in {@link SEARCH_FIELDS} order (drivers hand `text[]` back as an array or as `{a,b}`). */
function fieldsOf(value: SearchField[] | string): SearchField[] {
  const fields = typeof value === 'string' ? (value.replace(/^\{|\}$/g, '').split(',') as SearchField[]) : value;
  return SEARCH_FIELDS.filter((field) => fields.includes(field));
}
