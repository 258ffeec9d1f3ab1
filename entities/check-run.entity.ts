import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';
import { SealedJsonType } from './sealed-json.type.js';
import { TenantSchema } from './tenant.entity.js';

/** Kinds of standalone check. */
export const CHECK_KINDS = ['id_verification', 'poa', 'aml'] as const;
/** A standalone check's kind. */
export type CheckKind = (typeof CHECK_KINDS)[number];

/**
 * One standalone check (`POST /v1/id-verification`, `/v1/poa`, `/v1/aml`) and its result, kept so
 * a tenant can audit what was checked. Never holds the submitted images.
 */
export const CheckRunSchema = defineEntity({
  name: 'CheckRun',
  tableName: 'check_run',
  properties: {
    /** The result's id (`verification_id`, `poa_id`, `aml_id`). */
    id: p.uuid().primary(),
    tenant: () => p.manyToOne(TenantSchema).ref(),
    /** Environment of the key that ran the check. */
    environment: p.enum(API_KEY_ENVIRONMENTS),
    kind: p.enum(CHECK_KINDS),
    /** Result status as returned (`passed`, `failed`, `review`, ...). */
    status: p.text(),
    /** The response body as returned, without images; sealed at rest but for its status (src/auth/personal-data.ts). */
    result: p.json<Record<string, unknown>>().type(SealedJsonType),
    /** Caller metadata echoed back, when given. */
    metadata: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** A check run row. */
export type CheckRun = InferEntity<typeof CheckRunSchema>;
