import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import { TenantSchema } from './tenant.entity.js';

/** What a list holds: document fingerprints, name fingerprints or face templates. */
export const LIST_TYPES = ['document', 'name', 'face'] as const;
/** A list's type. */
export type ListType = (typeof LIST_TYPES)[number];
/** What a match does to a session: decline it, or send it to a reviewer. */
export const LIST_POLICIES = ['auto_decline', 'review'] as const;
/** A list's policy. */
export type ListPolicy = (typeof LIST_POLICIES)[number];

/** A tenant's list; built-in lists (one per type) cannot be deleted or retyped. */
export const ListSchema = defineEntity({
  name: 'List',
  tableName: 'list',
  properties: {
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).ref(),
    /** A key sees only the lists of its own environment; each environment has its own built-ins. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    name: p.text(),
    type: p.enum(LIST_TYPES),
    policy: p.enum(LIST_POLICIES),
    builtIn: p.boolean().default(false),
    /**
     * Entries of the list, kept by triggers on `list_entry` (migration H39ListEntryCount) so no
     * answer counts them; read it with `disableIdentityMap`, since an entry added in the same unit
     * of work changes it behind an entity already loaded.
     */
    entryCount: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
/** A list row. */
export type List = InferEntity<typeof ListSchema>;

/**
 * One entry of a list. Face templates are written and read with SQL (src/lists/face-index.ts),
 * since they are 256-byte `bytea` columns with a `vector(256)` copy where the server has pgvector;
 * the entity never loads them.
 */
export const ListEntrySchema = defineEntity({
  name: 'ListEntry',
  tableName: 'list_entry',
  properties: {
    id: p.uuid().primary(),
    list: () => p.manyToOne(ListSchema).ref(),
    /** Copied from the list so gating filters by tenant without a join. */
    tenantId: p.uuid(),
    /** Copied from the list, like the tenant, for gating without a join. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    entryType: p.enum(LIST_TYPES),
    /** `sha256:<hex>`: of the normalised document or name, or of the stored face template. */
    fingerprint: p.text(),
    /** Version of the tenant's face template key the template was made under; null for other types. */
    keyVersion: p.integer().nullable(),
    reason: p.text().nullable(),
    /** Who added it: `api_key:<key id>`. */
    addedBy: p.text(),
    /** The operator's name when a person in the console added it; null for a key. */
    addedByName: p.text().nullable(),
    /** Session the face came from, when given. */
    sessionId: p.uuid().nullable(),
    /**
     * What the entry is, for the people who read the list (the name, the document, the session of
     * a face), sealed with the service's at-rest key; null on entries added before labels. Gates
     * never read it: they match fingerprints only.
     */
    labelSealed: p.text().nullable().hidden(),
    addedAt: p.datetime(),
    /** The 256-byte cancelable face template of a face entry; never loaded by the entity (see above). */
    template: p.blob().nullable().lazy(),
    /** The writing transaction's id (`pg_current_xact_id()`): the in-process face index catches up by it. */
    changeXid: p.string().columnType('xid8').defaultRaw('pg_current_xact_id()'),
  },
});
/** A list entry row. */
export type ListEntry = InferEntity<typeof ListEntrySchema>;

/** A tenant's secret for cancelable face templates, sealed with the service's at-rest key. */
export const FaceTemplateKeySchema = defineEntity({
  name: 'FaceTemplateKey',
  tableName: 'face_template_key',
  properties: {
    tenantId: p.uuid().primary(),
    /** Bumped by every rotation; templates of an older version are revoked. */
    version: p.integer(),
    sealedSecret: p.text().hidden(),
    createdAt: p.datetime(),
  },
});
/** A face template key row. */
export type FaceTemplateKey = InferEntity<typeof FaceTemplateKeySchema>;
