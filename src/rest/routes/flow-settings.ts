import { z } from 'zod';
import {
  GetFlowSettingsDocument,
  UpdateFlowSettingsDocument,
  type FlowSettingsFieldsFragment,
} from '../../graphql/generated/operations.js';
import { LOGO_MAX_BYTES, SUPPORTED_LANGUAGES } from '../../tenants/flow-settings.service.js';
import { defineRoute } from '../route.js';

/** The hosted flow's settings of one environment, as REST writes them. */
export const FlowSettingsJson = z.object({
  display_name: z.string(),
  logo: z.string().optional(),
  primary_color: z.string(),
  privacy_url: z.string().optional(),
  allowed_redirect_origins: z.array(z.string()),
  allowed_embed_origins: z.array(z.string()),
  default_language: z.enum(SUPPORTED_LANGUAGES),
  updated_at: z.number().int().optional(),
});

/** Shapes the settings for REST (absent fields left out, not null). */
function presentFlowSettings(settings: FlowSettingsFieldsFragment): z.infer<typeof FlowSettingsJson> {
  return {
    display_name: settings.displayName,
    ...(settings.logo != null ? { logo: settings.logo } : {}),
    primary_color: settings.primaryColor,
    ...(settings.privacyUrl != null ? { privacy_url: settings.privacyUrl } : {}),
    allowed_redirect_origins: settings.allowedRedirectOrigins,
    allowed_embed_origins: settings.allowedEmbedOrigins,
    default_language: settings.defaultLanguage as (typeof SUPPORTED_LANGUAGES)[number],
    ...(settings.updatedAt != null ? { updated_at: settings.updatedAt } : {}),
  };
}

/**
 * Body of `PATCH /v1/flow-settings`: the shape is checked here, the values (origins, colour
 * contrast, logo decoding) by the service, which answers with the REST field names.
 */
const FlowSettingsPatch = z
  .object({
    display_name: z.string().nullable().optional(),
    // base64 of LOGO_MAX_BYTES plus the data URI's header; the decoded size is checked again.
    logo: z
      .string()
      .max(Math.ceil((LOGO_MAX_BYTES * 4) / 3) + 64, `must be at most ${LOGO_MAX_BYTES / 1024} KB`)
      .nullable()
      .optional(),
    primary_color: z.string().nullable().optional(),
    privacy_url: z.string().nullable().optional(),
    allowed_redirect_origins: z.array(z.string()).optional(),
    allowed_embed_origins: z.array(z.string()).optional(),
    default_language: z.string().optional(),
  })
  .strict();

/** The hosted verification flow's settings routes. */
export const flowSettingsRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/flow-settings',
    operationId: 'getFlowSettings',
    summary: "The hosted flow's settings of the key's environment: branding, redirect and embedding origins, default language.",
    tag: 'Hosted flow',
    operation: GetFlowSettingsDocument,
    variables: () => ({}),
    status: 200,
    present: (data) => presentFlowSettings(data.flowSettings),
    response: FlowSettingsJson,
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/flow-settings',
    operationId: 'updateFlowSettings',
    summary: "Changes the hosted flow's settings of the key's environment; fields left out keep their value, null clears.",
    tag: 'Hosted flow',
    operation: UpdateFlowSettingsDocument,
    body: FlowSettingsPatch,
    variables: ({ body }) => ({
      input: {
        displayName: body.display_name,
        logo: body.logo,
        primaryColor: body.primary_color,
        privacyUrl: body.privacy_url,
        allowedRedirectOrigins: body.allowed_redirect_origins,
        allowedEmbedOrigins: body.allowed_embed_origins,
        defaultLanguage: body.default_language,
      },
    }),
    status: 200,
    present: (data) => presentFlowSettings(data.updateFlowSettings),
    response: FlowSettingsJson,
  }),
];
