/**
 * Each tenant's settings for the hosted verification flow, per environment: how the page looks
 * (name, logo, colour, privacy link), where a session may send the browser at the end
 * (`redirect_url` origins) and which sites may embed the page in an iframe, and the default
 * language. Absent settings read as the defaults; every value is validated before it is stored.
 *
 * Raw SQL: (b) saving settings is one upsert (`on conflict (tenant_id, environment) do update`) of
 * the fields sent.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import sharp from 'sharp';
import { FlowSettingsSchema } from '../../entities/tenant-settings.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import { z } from 'zod';
import type { TenantScope } from '../auth/context.js';
import { decodeDataUri } from '../engines/data-uri.js';
import { ApiError, validationError } from '../shared/errors.js';
import type { Unchecked } from '../shared/input-rules.js';
import { parseOrThrow } from '../shared/validation.js';

/** Languages the hosted flow speaks; a session or the tenant picks one, the browser's is the fallback. */
export const SUPPORTED_LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
/** One language of the hosted flow. */
export type FlowLanguage = (typeof SUPPORTED_LANGUAGES)[number];

/** Largest logo, in bytes once decoded: the page carries it inline, so it stays small. */
export const LOGO_MAX_BYTES = 100 * 1024;
/** Largest logo side, in pixels. */
const LOGO_MAX_SIDE_PX = 1024;
/** Most origins in each allow-list. */
const ORIGINS_MAX = 20;
/** Default primary colour: the page's own blue, 7:1 against white text. */
export const DEFAULT_PRIMARY_COLOR = '#1d4ed8';
/** Least contrast between the primary colour and the white text on it (WCAG 2.2 AA for normal text). */
const MIN_CONTRAST = 4.5;

/** A tenant's flow settings in one environment, with defaults filled in. */
export interface FlowSettingsRecord {
  displayName: string;
  logo: string | null;
  primaryColor: string;
  privacyUrl: string | null;
  allowedRedirectOrigins: string[];
  allowedEmbedOrigins: string[];
  defaultLanguage: FlowLanguage;
  /** Unix seconds of the last change; null while only defaults apply. */
  updatedAt: number | null;
}

/** Relative luminance of an sRGB colour `#rrggbb` (WCAG 2.2). */
function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Contrast ratio of white text on a colour. */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

/**
 * An origin (`scheme://host[:port]`, nothing else): https, or http for localhost and 127.0.0.1
 * only where plain HTTP is allowed (sandbox, or a server in development mode).
 */
function originSchema(allowHttpLoopback: boolean) {
  return z
    .string()
    .max(300)
    .superRefine((value, context) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        context.addIssue({ code: 'custom', message: 'must be an origin such as https://app.example.com' });
        return;
      }
      if (url.origin !== value.replace(/\/$/, '')) {
        context.addIssue({ code: 'custom', message: `must be an origin only (scheme, host and port), e.g. ${url.origin}` });
        return;
      }
      const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
      if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback && allowHttpLoopback)) return;
      context.addIssue({
        code: 'custom',
        message: allowHttpLoopback ? 'must be https (http only for localhost)' : 'must be https in the live environment',
      });
    })
    .transform((value) => new URL(value).origin);
}

/** Input of an update (GraphQL's `FlowSettingsInput`; REST maps its body to it); absent fields keep their value, null clears. */
function updateSchema(allowHttpLoopback: boolean) {
  const origins = z
    .array(originSchema(allowHttpLoopback))
    .max(ORIGINS_MAX)
    .transform((list) => [...new Set(list)]);
  return z
    .object({
      displayName: z.string().trim().min(1).max(80).nullable().optional(),
      logo: z
        .string()
        .max(LOGO_MAX_BYTES * 2)
        .nullable()
        .optional(),
      primaryColor: z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb')
        .transform((value) => value.toLowerCase())
        .refine(
          (value) => contrastWithWhite(value) >= MIN_CONTRAST,
          `must keep white text readable: contrast at least ${MIN_CONTRAST}:1 (WCAG AA); choose a darker colour`,
        )
        .nullable()
        .optional(),
      privacyUrl: z
        .string()
        .max(2048)
        .refine((value) => {
          try {
            return new URL(value).protocol === 'https:';
          } catch {
            return false;
          }
        }, 'must be an https URL')
        .nullable()
        .optional(),
      allowedRedirectOrigins: origins.optional(),
      allowedEmbedOrigins: origins.optional(),
      defaultLanguage: z.enum(SUPPORTED_LANGUAGES).optional(),
    })
    .strict();
}

/** Validated update. */
export type FlowSettingsUpdate = z.output<ReturnType<typeof updateSchema>>;
/** What updateFlowSettings accepts before validation: GraphQL's `FlowSettingsInput` as is. */
export type FlowSettingsInput = Unchecked<z.input<ReturnType<typeof updateSchema>>>;

/** Checks a logo data URI by decoding it: PNG, JPEG or WebP, small enough; SVG (scriptable) refused. */
async function checkLogo(logo: string): Promise<string> {
  const refuse = (message: string) => validationError([{ field: 'logo', code: 'invalid', message }]);
  // PNG, JPEG or WebP only: an SVG logo could carry script.
  const decoded = decodeDataUri(logo, 'logo', ['image/png', 'image/jpeg', 'image/webp'], LOGO_MAX_BYTES);
  try {
    const metadata = await sharp(decoded.bytes, { limitInputPixels: LOGO_MAX_SIDE_PX * LOGO_MAX_SIDE_PX }).metadata();
    const format = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' }[metadata.format as string];
    if (format !== decoded.mimeType) throw new Error('format mismatch');
    if ((metadata.width ?? 0) > LOGO_MAX_SIDE_PX || (metadata.height ?? 0) > LOGO_MAX_SIDE_PX) throw new Error('too large');
  } catch {
    throw refuse(`is not a readable ${decoded.mimeType} image of at most ${LOGO_MAX_SIDE_PX}×${LOGO_MAX_SIDE_PX} pixels`);
  }
  return logo;
}

/** The tenant's name, the display name's default. */
async function tenantName(em: EntityManager, tenantId: string): Promise<string> {
  const tenant = await em.findOne(TenantSchema, tenantId, { fields: ['name'] });
  return tenant?.name ?? '';
}

/** The tenant's settings in the scope's environment, defaults where nothing is stored. */
export async function flowSettingsFor(em: EntityManager, scope: TenantScope): Promise<FlowSettingsRecord> {
  // Refreshed: an update of this request wrote the row with a statement of its own.
  const row = await em.findOne(FlowSettingsSchema, { tenantId: scope.tenantId, environment: scope.environment }, { refresh: true });
  return {
    displayName: row?.displayName ?? (await tenantName(em, scope.tenantId)),
    logo: row?.logo ?? null,
    primaryColor: row?.primaryColor ?? DEFAULT_PRIMARY_COLOR,
    privacyUrl: row?.privacyUrl ?? null,
    allowedRedirectOrigins: row?.allowedRedirectOrigins ?? [],
    allowedEmbedOrigins: row?.allowedEmbedOrigins ?? [],
    defaultLanguage: (row?.defaultLanguage ?? 'en') as FlowLanguage,
    updatedAt: row ? Math.floor(new Date(row.updatedAt).getTime() / 1000) : null,
  };
}

/**
 * Changes the tenant's settings of the scope's environment: fields given replace the stored ones
 * (null clears), others stay. Plain-HTTP loopback origins are accepted in sandbox, and in live
 * only on a server in development mode.
 */
export async function updateFlowSettings(
  em: EntityManager,
  scope: TenantScope,
  rawInput: FlowSettingsInput,
  options: { allowHttpLoopback: boolean },
): Promise<FlowSettingsRecord> {
  const input = parseOrThrow(updateSchema(options.allowHttpLoopback || scope.environment === 'sandbox'), rawInput);
  if (input.logo) await checkLogo(input.logo);
  const columns: [string, unknown][] = [];
  const set = (column: string, value: unknown) => value !== undefined && columns.push([column, value]);
  set('display_name', input.displayName);
  set('logo', input.logo);
  set('primary_color', input.primaryColor);
  set('privacy_url', input.privacyUrl);
  set('allowed_redirect_origins', input.allowedRedirectOrigins && JSON.stringify(input.allowedRedirectOrigins));
  set('allowed_embed_origins', input.allowedEmbedOrigins && JSON.stringify(input.allowedEmbedOrigins));
  set('default_language', input.defaultLanguage);
  const names = columns.map(([column]) => column);
  await em.execute(
    `insert into flow_settings (tenant_id, environment${names.map((name) => `, ${name}`).join('')}, updated_at)
     values (?, ?${names.map(() => ', ?').join('')}, now())
     on conflict (tenant_id, environment) do update set updated_at = now()${names.map((name) => `, ${name} = excluded.${name}`).join('')}`,
    [scope.tenantId, scope.environment, ...columns.map(([, value]) => value)],
  );
  return flowSettingsFor(em, scope);
}

/**
 * Checks a session's `redirect_url`: an absolute http(s) URL without credentials whose origin is
 * exactly one of the tenant's allowed redirect origins of the environment, so the flow is never
 * an open redirect. Returns the URL as parsed.
 */
export async function checkRedirectUrl(em: EntityManager, scope: TenantScope, value: string): Promise<string> {
  const refuse = (message: string) =>
    new ApiError('redirect_not_allowed', message, [{ field: 'redirectUrl', code: 'not_allowed', message }]);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('redirect_url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('redirect_url must be an http(s) URL');
  if (url.username || url.password) throw refuse('redirect_url must not carry credentials');
  const { allowedRedirectOrigins } = await flowSettingsFor(em, scope);
  if (!allowedRedirectOrigins.includes(url.origin))
    throw refuse(
      allowedRedirectOrigins.length === 0
        ? `redirect_url origin ${url.origin} is not allowed: add it to allowed_redirect_origins (PATCH /v1/flow-settings) first`
        : `redirect_url origin ${url.origin} is not among allowed_redirect_origins (${allowedRedirectOrigins.join(', ')})`,
    );
  return url.href;
}
