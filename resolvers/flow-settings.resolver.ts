import { requireCaller } from '../src/auth/authorization.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Field, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { SessionStatus } from '../src/domain/types.js';
import { ID_TYPES, TWO_SIDED_ID_TYPES } from '../src/engines/inputs.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { readSession } from '../src/sessions/read.js';
import { flowSettingsFor, updateFlowSettings, type FlowSettingsRecord } from '../src/tenants/flow-settings.service.js';
import { unixSeconds } from '../src/shared/time.js';
import { SessionStatusEnum } from './enums.js';
import { endUserSteps } from './end-user-steps.js';
import { VerificationStep } from './session.type.js';
import type { StoredReason } from '../entities/session.entity.js';
import { reasonDefinition } from '../src/domain/reasons.js';
import { explainReasons } from '../src/sessions/decision.js';
import { UnixTimeScalar } from './scalars.js';
import { storedDetailsOf } from '../src/sessions/stored-node-details.js';

/** How the hosted flow looks and where it may go, for one environment of the tenant. */
@ObjectType('FlowSettings', { description: "The hosted verification flow's settings for the key's environment." })
export class FlowSettingsObject {
  @Field(() => String, { description: 'Name shown to the end user; the tenant name by default.' })
  displayName!: string;

  @Field(() => String, { nullable: true, description: 'Logo as a data URI (PNG, JPEG or WebP, at most 100 KB).' })
  logo!: string | null;

  @Field(() => String, { description: 'Buttons and accents, #rrggbb; white text on it keeps 4.5:1 contrast.' })
  primaryColor!: string;

  @Field(() => String, { nullable: true, description: 'Privacy notice linked from the consent screen (https).' })
  privacyUrl!: string | null;

  @Field(() => [String], { description: 'Origins a session redirect_url may point at.' })
  allowedRedirectOrigins!: string[];

  @Field(() => [String], { description: 'Origins that may embed the flow in an iframe (CSP frame-ancestors).' })
  allowedEmbedOrigins!: string[];

  @Field(() => String, { description: 'en, fr, de or es: used when neither the session, ?lang= nor the browser choose.' })
  defaultLanguage!: string;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds of the last change; null while only defaults apply.' })
  updatedAt!: number | null;
}

/** A change of the flow settings; fields left out keep their value, null clears. */
@InputType('FlowSettingsInput')
export class FlowSettingsInput {
  @Field(() => String, { nullable: true })
  displayName?: string | null;

  @Field(() => String, { nullable: true, description: 'data:image/png|jpeg|webp;base64,… (SVG refused), at most 100 KB.' })
  logo?: string | null;

  @Field(() => String, { nullable: true, description: '#rrggbb, dark enough for white text (4.5:1).' })
  primaryColor?: string | null;

  @Field(() => String, { nullable: true })
  privacyUrl?: string | null;

  @Field(() => [String], { nullable: true })
  allowedRedirectOrigins?: string[];

  @Field(() => [String], { nullable: true })
  allowedEmbedOrigins?: string[];

  @Field(() => String, { nullable: true })
  defaultLanguage?: string;
}

/** One document type the end user may choose. */
@ObjectType('HostedDocumentType')
export class HostedDocumentType {
  @Field(() => String)
  idType!: string;

  @Field(() => Int, { description: '1, or 2 when the back is needed too.' })
  sides!: number;

  @Field(() => [String], { nullable: true, description: 'Issuing countries (ISO-2) accepted; null means any.' })
  countries!: string[] | null;
}

/** What the document step read, to prefill the personal details. */
@ObjectType('HostedDocumentRead')
export class HostedDocumentRead {
  @Field(() => String, { nullable: true })
  firstName!: string | null;

  @Field(() => String, { nullable: true })
  lastName!: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD.' })
  dateOfBirth!: string | null;

  @Field(() => String, { nullable: true, description: 'ISO-2.' })
  nationality!: string | null;
}

/** Everything the hosted flow's page needs to walk the end user through the session. */
@ObjectType('HostedFlow')
export class HostedFlow {
  @Field(() => String)
  sessionId!: string;

  @Field(() => SessionStatusEnum)
  status!: SessionStatus;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  expiresAt!: number;

  @Field(() => String, { nullable: true, description: 'Language chosen at creation, if any.' })
  language!: string | null;

  @Field(() => String)
  defaultLanguage!: string;

  @Field(() => String)
  displayName!: string;

  @Field(() => String, { nullable: true })
  logo!: string | null;

  @Field(() => String)
  primaryColor!: string;

  @Field(() => String, { nullable: true })
  privacyUrl!: string | null;

  @Field(() => [String])
  allowedEmbedOrigins!: string[];

  @Field(() => String, { nullable: true, description: "The session's redirect_url, if any." })
  redirectUrl!: string | null;

  @Field(() => [VerificationStep], { description: "The steps in the workflow's order." })
  steps!: VerificationStep[];

  @Field(() => [HostedDocumentType])
  documentTypes!: HostedDocumentType[];

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'expected_details given at creation, if any.' })
  expectedDetails!: Record<string, unknown> | null;

  @Field(() => HostedDocumentRead, { nullable: true, description: 'Read from the document once its step passed.' })
  documentRead!: HostedDocumentRead | null;

  @Field(() => String, {
    nullable: true,
    description:
      "When declined: the theme of the short, honest sentence the person reads (src/domain/reasons.ts END_USER_MESSAGES; never a fraud signal's details).",
  })
  outcomeMessage!: string | null;
}

/** The theme the person reads for a decline: the first (decisive) reason's, a tenant code's own theme when it carries one. */
function declineMessage(reasons: readonly StoredReason[], nodeResults: Parameters<typeof explainReasons>[1]): string {
  const [first] = explainReasons(reasons, nodeResults);
  if (!first) return 'not_verified';
  return first.endUserMessage ?? reasonDefinition(first.cause).endUser;
}

/** Shapes stored settings for GraphQL. */
function toSettingsObject(settings: FlowSettingsRecord): FlowSettingsObject {
  return { ...settings };
}

/** Flow settings (API key) and the hosted flow's own read (session token). */
@Resolver()
export class FlowSettingsResolver {
  @Query(() => FlowSettingsObject, { description: "The hosted flow's settings of the key's environment (defaults until changed)." })
  async flowSettings(@Ctx() context: GraphQLContext): Promise<FlowSettingsObject> {
    return toSettingsObject(await flowSettingsFor(context.em, requireTenant(context)));
  }

  @Mutation(() => FlowSettingsObject, { description: "Changes the hosted flow's settings of the key's environment." })
  async updateFlowSettings(
    @Arg('input', () => FlowSettingsInput) input: FlowSettingsInput,
    @Ctx() context: GraphQLContext,
  ): Promise<FlowSettingsObject> {
    const scope = requireTenant(context);
    return toSettingsObject(
      await updateFlowSettings(context.em, scope, input, { allowHttpLoopback: context.config.DEV_ALLOW_LOOPBACK_WEBHOOKS }),
    );
  }

  @Query(() => HostedFlow, {
    description:
      "What the hosted flow's page shows for one session: branding, steps, document types, prefill. With the session token (x-session-token) or the API key.",
  })
  async hostedFlow(@Arg('sessionId', () => String) sessionId: string, @Ctx() context: GraphQLContext): Promise<HostedFlow> {
    const { session, nodeResults } = await readSession(context.em, context.services, requireCaller(context.principal), sessionId);
    const settings = await flowSettingsFor(context.em, { tenantId: session.tenantId, environment: session.environment });
    const document = nodeResults.find((row) => row.nodeType === 'document_verification');
    const extracted =
      document && document.status === 'passed' ? (storedDetailsOf(document, 'document_verification').extracted ?? null) : null;
    return {
      sessionId: session.id,
      status: session.status,
      expiresAt: unixSeconds(session.expiresAt),
      language: session.language,
      defaultLanguage: settings.defaultLanguage,
      displayName: settings.displayName,
      logo: settings.logo,
      primaryColor: settings.primaryColor,
      privacyUrl: settings.privacyUrl,
      allowedEmbedOrigins: settings.allowedEmbedOrigins,
      redirectUrl: session.redirectUrl,
      steps: await endUserSteps(context.em, session.id, nodeResults),
      documentTypes: ID_TYPES.map((idType) => ({ idType, sides: TWO_SIDED_ID_TYPES.includes(idType) ? 2 : 1, countries: null })),
      expectedDetails: (session.expectedDetails as Record<string, unknown> | null) ?? null,
      outcomeMessage: session.status === 'declined' ? declineMessage(session.reasons, nodeResults) : null,
      documentRead: extracted
        ? {
            firstName: extracted.first_name ?? null,
            lastName: extracted.last_name ?? null,
            dateOfBirth: extracted.date_of_birth ?? null,
            nationality: extracted.nationality ?? null,
          }
        : null,
    };
  }
}
