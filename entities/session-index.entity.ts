import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/**
 * What the service keeps about a session to find it again, never the personal data itself: the
 * console's search index, the subjects gated against lists and searched 1:N, and the prints of
 * selfies and documents that spot a reuse. Each is written by its own module with SQL (a benchmark
 * or a lock-free read needs it: see each module's header) and erased with the session.
 */

/** The console's search row of a session (src/sessions/search.ts): a normalised name and keyed digests. */
export const SessionSearchSchema = defineEntity({
  name: 'SessionSearch',
  tableName: 'session_search',
  properties: {
    sessionId: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    /** Lower-case ASCII name tokens, matched by trigram similarity. */
    nameNormalized: p.text().default(''),
    /** HMAC digests of e-mail, phone and document numbers under the tenant's search key. */
    exactTokens: p.array().defaultRaw(`'{}'::text[]`),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
/** A session search row. */
export type SessionSearch = InferEntity<typeof SessionSearchSchema>;

/** What a subject of a session is checked against lists as: a face template or a name fingerprint. */
export const LIST_SUBJECT_KINDS = ['face', 'name'] as const;

/**
 * A session's subject as gates and the 1:N duplicate search see it (src/duplicates/template-index.ts):
 * a cancelable face template or a name fingerprint per step. Where the server has pgvector, a
 * `vector(256)` copy of the template (`embedding`) sits beside it, written and read with SQL only.
 */
export const SessionListSubjectSchema = defineEntity({
  name: 'SessionListSubject',
  tableName: 'session_list_subject',
  properties: {
    sessionId: p.uuid().primary(),
    tenantId: p.uuid(),
    nodeType: p.text().primary(),
    kind: p.enum(LIST_SUBJECT_KINDS).primary(),
    /** `sha256:<hex>` of the normalised name; null for faces. */
    fingerprint: p.text().nullable(),
    /** The 256-byte cancelable face template; null for names. */
    template: p.blob().nullable().lazy(),
    /** Version of the tenant's face template key the template was made under. */
    keyVersion: p.integer().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    /** The writing transaction's id (`pg_current_xact_id()`): the in-process index catches up by it. */
    changeXid: p.string().columnType('xid8').defaultRaw('pg_current_xact_id()'),
  },
});
/** A session list subject row. */
export type SessionListSubject = InferEntity<typeof SessionListSubjectSchema>;

/** A selfie's SHA-256 and 64-bit perceptual hash (never the image), to spot a selfie submitted again (`selfie_reused`). */
export const SessionSelfiePrintSchema = defineEntity({
  name: 'SessionSelfiePrint',
  tableName: 'session_selfie_print',
  properties: {
    sessionId: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    sha256: p.text(),
    /** 64-bit perceptual hash, signed. */
    phash: p.bigint('bigint'),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A selfie print row. */
export type SessionSelfiePrint = InferEntity<typeof SessionSelfiePrintSchema>;

/** A document's number and country as an HMAC under the tenant's face template key (never the number), to find the same document under another `vendor_data`. */
export const SessionDocumentPrintSchema = defineEntity({
  name: 'SessionDocumentPrint',
  tableName: 'session_document_print',
  properties: {
    sessionId: p.uuid().primary(),
    tenantId: p.uuid(),
    environment: p.enum(API_KEY_ENVIRONMENTS),
    fingerprint: p.text(),
    keyVersion: p.integer(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A document print row. */
export type SessionDocumentPrint = InferEntity<typeof SessionDocumentPrintSchema>;
