import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { REASON_CATEGORIES, REASON_SEVERITIES } from '../src/domain/reasons.js';
import { API_KEY_ENVIRONMENTS } from './api-key.entity.js';

/**
 * A tenant's settings of its hosted verification page in one environment (src/tenants/flow-settings.ts):
 * branding, privacy link, the origins a session may redirect to or embed the page from, default language.
 */
export const FlowSettingsSchema = defineEntity({
  name: 'FlowSettings',
  tableName: 'flow_settings',
  properties: {
    tenantId: p.uuid().primary(),
    environment: p.enum(API_KEY_ENVIRONMENTS).primary(),
    /** The name the page shows; null shows the tenant's name. */
    displayName: p.text().nullable(),
    /** The logo as a data URI the page carries inline (small: src/tenants/flow-settings.ts). */
    logo: p.text().nullable(),
    /** `#rrggbb`. */
    primaryColor: p.text().nullable(),
    privacyUrl: p.text().nullable(),
    /** Origins a session's `redirect_url` may point to. */
    allowedRedirectOrigins: p.json<string[]>().defaultRaw(`'[]'::jsonb`),
    /** Origins that may embed the page in a frame. */
    allowedEmbedOrigins: p.json<string[]>().defaultRaw(`'[]'::jsonb`),
    defaultLanguage: p.text().default('en'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
/** A flow settings row. */
export type FlowSettings = InferEntity<typeof FlowSettingsSchema>;

/** A tenant's own reason code beside the built-in catalogue of src/domain/reasons.ts, per environment. */
export const ReasonCodeSchema = defineEntity({
  name: 'ReasonCode',
  tableName: 'reason_code',
  properties: {
    tenantId: p.uuid().primary(),
    environment: p.enum(API_KEY_ENVIRONMENTS).primary(),
    code: p.text().primary(),
    category: p.enum(REASON_CATEGORIES),
    severity: p.enum(REASON_SEVERITIES),
    /** Whether the person may try again after it. */
    retryable: p.boolean(),
    /** What a reviewer reads. */
    reviewerText: p.text(),
    /** What the person reads. */
    endUserMessage: p.text(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
/** A reason code row. */
export type ReasonCode = InferEntity<typeof ReasonCodeSchema>;
