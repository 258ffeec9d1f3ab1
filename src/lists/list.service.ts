/**
 * Lists and their entries (docs/design.md "Lists"). Every tenant has three built-in lists (face,
 * document, name), created on first use; custom lists are created, renamed, re-policied, retyped
 * while empty, and deleted. Entries carry only fingerprints, plus a cancelable template for faces.
 *
 * Raw SQL: (b) built-in lists are `insert … on conflict … where built_in do nothing` (a partial
 * unique index), and a face entry's pgvector embedding is written with `?::vector`.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ListEntrySchema, ListSchema, type List, type ListEntry, type ListPolicy, type ListType } from '../../entities/list.entity.js';
import { SessionSchema } from '../../entities/session.entity.js';
import { SessionListSubjectSchema } from '../../entities/session-index.entity.js';
import type { TenantPrincipal, TenantScope } from '../auth/context.js';
import { documentNumberKey, sortedTokenKey } from '../engines/aml/normalize.js';
import { fingerprint as templateFingerprint, templateFromBytes } from '../engines/face/template.js';
import { ApiError, isClientError, notFound, validationError } from '../shared/errors.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { Services } from '../services.js';
import { parseOrThrow } from '../shared/validation.js';
import { keptSelfie } from '../evidence/evidence.service.js';
import { faceTemplateKey, templateOfImage } from './face-templates.js';
import { templateColumns } from './face-index.js';
import { isUuid } from '../shared/input-rules.js';
import {
  CreateListInputSchema,
  DocumentEntryInputSchema,
  FaceEntryInputSchema,
  NameEntryInputSchema,
  UpdateListInputSchema,
  type CreateListInput,
  type DocumentEntryInput,
  type FaceEntryInput,
  type NameEntryInput,
  type UpdateListInput,
} from './list-input.js';

/** Entries one page holds when no `limit` is given. */
export const LIST_ENTRIES_PAGE_DEFAULT = 50;
/** Most entries one page may hold. */
export const LIST_ENTRIES_PAGE_MAX = 500;

/**
 * The built-in lists every tenant has, and their default policies: a listed face or document is
 * a known fraudster and declines; a listed name is often a namesake, so it goes to a reviewer.
 */
export const BUILT_IN_LISTS: readonly { type: ListType; name: string; policy: ListPolicy }[] = [
  { type: 'face', name: 'Blocked faces', policy: 'auto_decline' },
  { type: 'document', name: 'Blocked documents', policy: 'auto_decline' },
  { type: 'name', name: 'Watched names', policy: 'review' },
];

/** Default policy of a new custom list, by type (the same as the built-in of that type). */
const DEFAULT_POLICY: Record<ListType, ListPolicy> = { face: 'auto_decline', document: 'auto_decline', name: 'review' };

/** A list with its entry count, as the API shows it. */
export interface ListWithCount {
  list: List;
  /** Number of entries. */
  entries: number;
}

/** Paging of entries. */
const PageSchema = z
  .object({
    limit: z.number().int().min(1).max(LIST_ENTRIES_PAGE_MAX).default(LIST_ENTRIES_PAGE_DEFAULT),
    offset: z.number().int().min(0).default(0),
  })
  .strict();

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

/**
 * Document numbers are compared without case, spaces, punctuation, invisible characters or
 * lookalike letters ("AB 12-345" = "ab12345"; a Cyrillic Х is an X), the AML normaliser's rules.
 */
const normaliseDocumentNumber = documentNumberKey;

/** Fingerprint of a document entry: SHA-256 of `COUNTRY|TYPE|NUMBER`, each normalised. */
export function documentFingerprint(country: string, idType: string, documentNumber: string): string {
  return sha256(`${country.trim().toUpperCase()}|${idType.trim().toUpperCase()}|${normaliseDocumentNumber(documentNumber)}`);
}

/**
 * Fingerprint of a name entry: SHA-256 of the AML normalisation with tokens sorted, so case,
 * accents, titles and word order do not matter ("Dr. José García" = "garcia jose"). Only the
 * hash is stored: a list of names is personal data the tenant need not keep in clear here.
 */
export function nameFingerprint(name: string): string {
  return sha256(`name|${sortedTokenKey(name)}`);
}

/** The readable label of a document entry: `GB PASSPORT 123456789`. */
export function documentLabel(country: string, idType: string, documentNumber: string): string {
  return `${country.trim().toUpperCase()} ${idType.trim().toUpperCase()} ${documentNumber.trim()}`;
}

/** The readable label of a face entry: the session it came from, or an uploaded photo. */
export function faceLabel(sessionId: string | undefined): string {
  return sessionId ? `Selfie of session ${sessionId}` : 'Uploaded photo';
}

/** A uuid, or a 404: a malformed id names nothing the caller owns. */
function assertUuid(id: string, what: string): void {
  if (!isUuid(id)) throw notFound(what);
}

/** Creates the built-in lists of a tenant's environment that do not exist yet (race-safe). */
export async function ensureBuiltInLists(em: EntityManager, scope: TenantScope): Promise<void> {
  for (const builtIn of BUILT_IN_LISTS) {
    await em.execute(
      `insert into list (id, tenant_id, environment, name, type, policy, built_in) values (?, ?, ?, ?, ?, ?, true)
       on conflict (tenant_id, environment, type) where built_in do nothing`,
      [randomUUID(), scope.tenantId, scope.environment, builtIn.name, builtIn.type, builtIn.policy],
      'run',
    );
  }
}

/** Entry counts of some lists: the counters the triggers keep on their rows, read afresh (not from entities already loaded). */
async function entryCounts(em: EntityManager, listIds: string[]): Promise<Map<string, number>> {
  if (listIds.length === 0) return new Map();
  const rows = await em.find(ListSchema, { id: { $in: listIds } }, { fields: ['id', 'entryCount'], disableIdentityMap: true });
  return new Map(rows.map((row) => [row.id, row.entryCount]));
}

/** Every list of the tenant's environment (built-ins first), with entry counts. */
export async function listLists(em: EntityManager, scope: TenantScope): Promise<ListWithCount[]> {
  const owner = { tenant: scope.tenantId, environment: scope.environment };
  const existing = await em.count(ListSchema, { ...owner, builtIn: true });
  if (existing < BUILT_IN_LISTS.length) await ensureBuiltInLists(em, scope);
  const lists = await em.find(ListSchema, owner, { orderBy: { builtIn: 'desc', createdAt: 'asc', id: 'asc' } });
  const counts = await entryCounts(
    em,
    lists.map((list) => list.id),
  );
  return lists.map((list) => ({ list, entries: counts.get(list.id) ?? 0 }));
}

/** One list of the scope; 404 when it is another tenant's or environment's, or does not exist. */
export async function findList(em: EntityManager, scope: TenantScope, listId: string): Promise<List> {
  assertUuid(listId, 'List');
  const list = await em.findOne(ListSchema, { id: listId, tenant: scope.tenantId, environment: scope.environment });
  if (!list) throw notFound('List');
  return list;
}

/** One list with its entry count. */
export async function getList(em: EntityManager, scope: TenantScope, listId: string): Promise<ListWithCount> {
  const list = await findList(em, scope, listId);
  return { list, entries: (await entryCounts(em, [list.id])).get(list.id) ?? 0 };
}

/** Creates a custom list in the scope's environment. */
export async function createList(em: EntityManager, scope: TenantScope, rawInput: CreateListInput): Promise<ListWithCount> {
  const input = parseOrThrow(CreateListInputSchema, rawInput);
  const list = em.create(ListSchema, {
    id: randomUUID(),
    tenant: scope.tenantId,
    environment: scope.environment,
    name: input.name,
    type: input.type,
    policy: input.policy ?? DEFAULT_POLICY[input.type],
    builtIn: false,
  });
  await em.flush();
  return { list, entries: 0 };
}

/**
 * Renames, re-policies or retypes a list. Built-ins may be renamed and re-policied but never
 * retyped (403); a custom list may change type only while empty (409), since its entries would
 * no longer mean anything.
 */
export async function updateList(em: EntityManager, scope: TenantScope, listId: string, rawInput: UpdateListInput): Promise<ListWithCount> {
  const input = parseOrThrow(UpdateListInputSchema, rawInput);
  const list = await findList(em, scope, listId);
  const entries = (await entryCounts(em, [list.id])).get(list.id) ?? 0;
  if (input.type !== undefined && input.type !== list.type) {
    if (list.builtIn) throw new ApiError('forbidden', 'Built-in lists cannot change type.');
    if (entries > 0) throw new ApiError('conflict', 'Only an empty list can change type.');
    list.type = input.type;
  }
  if (input.name !== undefined) list.name = input.name;
  if (input.policy !== undefined) list.policy = input.policy;
  await em.flush();
  return { list, entries };
}

/** Deletes a custom list and its entries; built-ins are refused (403). */
export async function deleteList(em: EntityManager, scope: TenantScope, listId: string): Promise<void> {
  const list = await findList(em, scope, listId);
  if (list.builtIn) throw new ApiError('forbidden', 'Built-in lists cannot be deleted.');
  await em.nativeDelete(ListSchema, { id: list.id });
}

/** A page of a list's entries, oldest first, with the list's total. */
export async function listEntries(
  em: EntityManager,
  scope: TenantScope,
  listId: string,
  page: { limit?: number | null; offset?: number | null },
): Promise<{ count: number; entries: ListEntry[] }> {
  const { limit, offset } = parseOrThrow(PageSchema, {
    ...(page.limit != null ? { limit: page.limit } : {}),
    ...(page.offset != null ? { offset: page.offset } : {}),
  });
  const list = await findList(em, scope, listId);
  const entries = await em.find(ListEntrySchema, { list: list.id }, { orderBy: { addedAt: 'asc', id: 'asc' }, limit, offset });
  return { count: (await entryCounts(em, [list.id])).get(list.id) ?? 0, entries };
}

/** Refuses an entry whose type differs from the list's (a face into a name list): 400. */
function assertListType(list: List, entryType: ListType): void {
  if (list.type === entryType) return;
  const message = `list ${list.id} holds ${list.type} entries, not ${entryType} entries`;
  throw validationError([{ field: 'list_id', code: 'type_mismatch', message }], message);
}

/** Who added an entry, for the audit column. */
function addedBy(principal: TenantPrincipal): string {
  return principal.kind === 'operator' ? `operator:${principal.operatorId}` : `api_key:${principal.apiKeyId}`;
}

/** Inserts a name or document entry. */
async function insertEntry(
  em: EntityManager,
  list: List,
  principal: TenantPrincipal,
  fingerprint: string,
  reason: string | undefined,
  labelSealed: string,
): Promise<ListEntry> {
  const entry = em.create(ListEntrySchema, {
    id: randomUUID(),
    list: list.id,
    tenantId: principal.tenantId,
    environment: list.environment,
    entryType: list.type,
    fingerprint,
    keyVersion: null,
    reason: reason ?? null,
    addedBy: addedBy(principal),
    addedByName: principal.kind === 'operator' ? principal.operatorName : null,
    sessionId: null,
    labelSealed,
    addedAt: new Date(),
  });
  await em.flush();
  return entry;
}

/** Adds a name to a name list; the name as typed is kept sealed as the entry's label. */
export async function addNameEntry(
  em: EntityManager,
  secrets: ServiceSecrets,
  principal: TenantPrincipal,
  listId: string,
  rawInput: NameEntryInput,
): Promise<ListEntry> {
  const input = parseOrThrow(NameEntryInputSchema, rawInput);
  const list = await findList(em, principal, listId);
  assertListType(list, 'name');
  return insertEntry(em, list, principal, nameFingerprint(input.name), input.reason, secrets.encrypt(input.name.trim()));
}

/** Adds a document to a document list; country, type and number as typed are kept sealed as the entry's label. */
export async function addDocumentEntry(
  em: EntityManager,
  secrets: ServiceSecrets,
  principal: TenantPrincipal,
  listId: string,
  rawInput: DocumentEntryInput,
): Promise<ListEntry> {
  const input = parseOrThrow(DocumentEntryInputSchema, rawInput);
  const list = await findList(em, principal, listId);
  assertListType(list, 'document');
  const label = documentLabel(input.country, input.idType, input.documentNumber);
  return insertEntry(
    em,
    list,
    principal,
    documentFingerprint(input.country, input.idType, input.documentNumber),
    input.reason,
    secrets.encrypt(label),
  );
}

/** The result of adding a face (spec "Face entry creation result"). */
export interface FaceEntryCreated {
  entry: ListEntry;
  /** Always false: only the template and its fingerprint are kept. */
  rawImageStored: false;
}

/**
 * Adds a face to a face list: from `image` (exactly one face, else 400), or, with only
 * `sessionId`, from that session's selfie template (or, when it has none under the current
 * template key, from its selfie still kept as evidence). The image is decoded, described and dropped
 * in memory; only the projected template and its fingerprint are stored.
 */
export async function addFaceEntry(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  listId: string,
  rawInput: FaceEntryInput,
): Promise<FaceEntryCreated> {
  const input = parseOrThrow(FaceEntryInputSchema, rawInput);
  const list = await findList(em, principal, listId);
  assertListType(list, 'face');
  if (input.sessionId !== undefined) {
    assertUuid(input.sessionId, 'Session');
    const session = await em.findOne(
      SessionSchema,
      { id: input.sessionId, tenant: principal.tenantId, environment: principal.environment },
      { fields: ['id'] },
    );
    if (!session) throw notFound('Session');
  }
  let template: Int8Array;
  let keyVersion: number;
  if (input.image !== undefined) {
    ({ template, keyVersion } = await templateOfImage(em, services, principal.tenantId, input.image, 'image'));
  } else {
    const key = await faceTemplateKey(em, services, principal.tenantId);
    const row = await em.findOne(
      SessionListSubjectSchema,
      { sessionId: input.sessionId!, kind: 'face', keyVersion: key.version, template: { $ne: null } },
      { fields: ['template'], disableIdentityMap: true },
    );
    // No template under the current key (made before a key rotation, say): the kept selfie, if still kept, gives one.
    const selfie = row ? null : await keptSelfie(em, services.secrets, principal.tenantId, input.sessionId!);
    const noTemplate = () => {
      const message = 'the session has no selfie with a detectable face; send image instead';
      return validationError([{ field: 'sessionId', code: 'no_face_template', message }], message);
    };
    if (row) {
      template = templateFromBytes(row.template!);
      keyVersion = key.version;
    } else if (selfie) {
      ({ template, keyVersion } = await templateOfImage(em, services, principal.tenantId, selfie, 'sessionId').catch((error: unknown) => {
        throw isClientError(error) ? noTemplate() : error;
      }));
    } else throw noTemplate();
  }
  const id = randomUUID();
  const columns = await templateColumns(em, template);
  await em.execute(
    `insert into list_entry (id, list_id, tenant_id, environment, entry_type, fingerprint, template, ${columns.embedding === null ? '' : 'embedding, '}key_version, reason, added_by, added_by_name, session_id, label_sealed, added_at)
     values (?, ?, ?, ?, 'face', ?, ?, ${columns.embedding === null ? '' : '?::vector, '}?, ?, ?, ?, ?, ?, now())`,
    [
      id,
      list.id,
      principal.tenantId,
      list.environment,
      templateFingerprint(template),
      columns.template,
      ...(columns.embedding === null ? [] : [columns.embedding]),
      keyVersion,
      input.reason ?? null,
      addedBy(principal),
      principal.kind === 'operator' ? principal.operatorName : null,
      input.sessionId ?? null,
      services.secrets.encrypt(faceLabel(input.sessionId)),
    ],
    'run',
  );
  const entry = await em.findOneOrFail(ListEntrySchema, { id });
  return { entry, rawImageStored: false };
}

/** Deletes an entry of a list; from the commit on, it gates nothing (gates read the table, nothing is cached). */
export async function deleteEntry(em: EntityManager, scope: TenantScope, listId: string, entryId: string): Promise<void> {
  const list = await findList(em, scope, listId);
  assertUuid(entryId, 'List entry');
  const deleted = await em.nativeDelete(ListEntrySchema, { id: entryId, list: list.id });
  if (deleted === 0) throw notFound('List entry');
}
