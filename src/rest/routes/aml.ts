import { z } from 'zod';
import { amlResultJson, SCREEN_AML_FIELDS, type AmlHitExplanation } from '../../checks/aml-check.js';
import type { MatchedField } from '../../engines/aml/score.js';
import { AML_LISTS } from '../../engines/aml/entity.js';
import {
  DisposeAmlHitDocument,
  ScreenAmlDocument,
  SessionAmlHitsDocument,
  type AmlHitDispositionFieldsFragment,
  type AmlResultFieldsFragment,
} from '../../graphql/generated/operations.js';
import { AML_DISPOSITION_REASON_MAX } from '../../sessions/aml-dispositions.js';
import { defineRoute } from '../route.js';

/** How a date of birth or a country moved a hit's score. */
const AmlFieldComparisonJson = z.object({ outcome: z.string(), points: z.number().int(), listed: z.array(z.string()) });

/** Why a hit scored what it did (src/engines/aml/score.ts HitExplanation): added beside the spec's hit fields. */
const AmlHitExplanationJson = z.object({
  matched_name_kind: z.string(),
  query_form: z.string(),
  listed_form: z.string(),
  method: z.string(),
  token_matches: z.array(
    z.object({ query_token: z.string(), listed_token: z.string(), credit: z.number(), weight: z.number(), kind: z.string() }),
  ),
  unmatched_query_tokens: z.array(z.string()),
  unmatched_listed_tokens: z.array(z.string()),
  name_factors: z.array(z.object({ reason: z.string(), factor: z.number() })),
  name_similarity: z.number().min(0).max(1),
  name_points: z.number().int(),
  date_of_birth: AmlFieldComparisonJson,
  country: AmlFieldComparisonJson,
  summary: z.string(),
});

/** The spec's AML result JSON, with the hit shape docs/design.md "Smaller decisions" fixes. */
export const AmlResultJson = z.object({
  aml_id: z.string(),
  risk_band: z.number().int().min(1).max(5),
  hits: z.array(
    z.object({
      entity_id: z.string(),
      list: z.enum(AML_LISTS),
      matched_name: z.string(),
      name: z.string(),
      score: z.number().int().min(0).max(100),
      matched_fields: z.array(z.enum(['name', 'date_of_birth', 'country'])),
      programs: z.array(z.string()),
      topics: z.array(z.string()),
      explanation: AmlHitExplanationJson.nullable(),
    }),
  ),
  score: z.number().int().min(0).max(100),
  checked_lists: z.array(z.enum(AML_LISTS)),
});

/** Body of `POST /v1/aml` (snake_case, strict), from the service's field rules. */
const ScreenAmlBody = z
  .object({
    full_name: SCREEN_AML_FIELDS.fullName,
    date_of_birth: SCREEN_AML_FIELDS.dateOfBirth.optional(),
    country: SCREEN_AML_FIELDS.country.optional(),
    lists: SCREEN_AML_FIELDS.lists.optional(),
  })
  .strict();

/** Shapes an AML result for REST. */
export function presentAmlResult(result: AmlResultFieldsFragment): z.infer<typeof AmlResultJson> {
  return amlResultJson({
    ...result,
    // GraphQL types the explanation's kinds as strings; they are the engine's own values (score.ts).
    hits: result.hits.map((hit) => ({
      ...hit,
      matchedFields: hit.matchedFields as MatchedField[],
      explanation: (hit.explanation ?? null) as AmlHitExplanation | null,
    })),
  });
}

/** A reviewer's disposition of a hit, as REST shows it. */
const AmlHitDispositionJson = z.object({
  id: z.string(),
  session_id: z.string(),
  entity_id: z.string(),
  disposition: z.enum(['true_match', 'false_positive']),
  reason: z.string(),
  actor: z.string(),
  actor_name: z.string().nullable(),
  created_at: z.number().int(),
  entity_changed: z.boolean(),
});

/** One hit of a session with its listed entity and disposition (issue 25.3). */
const SessionAmlHitJson = z.object({
  entity_id: z.string(),
  list: z.string(),
  category: z.string(),
  matched_name: z.string(),
  score: z.number().int(),
  found_by: z.enum(['screening', 'monitoring']),
  suppressed: z.boolean(),
  entity: z
    .object({
      kind: z.string(),
      primary_name: z.string(),
      aliases: z.array(z.string()),
      dates_of_birth: z.array(z.string()),
      countries: z.array(z.string()),
      programs: z.array(z.string()),
      topics: z.array(z.string()),
      source_id: z.string(),
      imported_at: z.number().int(),
      version: z.string(),
    })
    .nullable(),
  disposition: AmlHitDispositionJson.nullable(),
});

/** Shapes a disposition for REST. */
function presentDisposition(record: AmlHitDispositionFieldsFragment): z.infer<typeof AmlHitDispositionJson> {
  return {
    id: record.id,
    session_id: record.sessionId,
    entity_id: record.entityId,
    disposition: record.disposition,
    reason: record.reason,
    actor: record.actor,
    actor_name: record.actorName ?? null,
    created_at: record.createdAt,
    entity_changed: record.entityChanged,
  };
}

/** Path of one session's hits. */
const SessionParams = z.object({ session_id: z.string().min(1).max(100) });
/** Path of one hit of a session (`entity_id` is `SOURCE_LIST:source_id`, URL-encoded or not). */
const HitParams = z.object({ session_id: z.string().min(1).max(100), entity_id: z.string().min(1).max(300) });

/** AML screening routes. */
export const amlRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/aml',
    operationId: 'screenAml',
    summary: 'Screens a person against sanctions, PEP and adverse-media lists; only full_name is required.',
    tag: 'AML',
    operation: ScreenAmlDocument,
    body: ScreenAmlBody,
    variables: ({ body }) => ({
      input: { fullName: body.full_name, dateOfBirth: body.date_of_birth, country: body.country, lists: body.lists },
    }),
    status: 200,
    present: (data) => presentAmlResult(data.screenAml),
    response: AmlResultJson,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sessions/:session_id/aml-hits',
    operationId: 'listSessionAmlHits',
    summary:
      "The session's AML hits with the listed entity (names, dates of birth, nationality, programmes, source) and each reviewer's disposition.",
    tag: 'AML',
    operation: SessionAmlHitsDocument,
    params: SessionParams,
    variables: ({ params }) => ({ id: params.session_id }),
    status: 200,
    present: (data) => ({
      data: data.session.amlHits.map((hit) => ({
        entity_id: hit.entityId,
        list: hit.list,
        category: hit.category,
        matched_name: hit.matchedName,
        score: hit.score,
        found_by: hit.foundBy as 'screening' | 'monitoring',
        suppressed: hit.suppressed,
        entity: hit.entity
          ? {
              kind: hit.entity.kind,
              primary_name: hit.entity.primaryName,
              aliases: hit.entity.aliases,
              dates_of_birth: hit.entity.datesOfBirth,
              countries: hit.entity.countries,
              programs: hit.entity.programs,
              topics: hit.entity.topics,
              source_id: hit.entity.sourceId,
              imported_at: hit.entity.importedAt,
              version: hit.entity.version,
            }
          : null,
        disposition: hit.disposition ? presentDisposition(hit.disposition) : null,
      })),
    }),
    response: z.object({ data: z.array(SessionAmlHitJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/aml-hits/:entity_id/disposition',
    operationId: 'disposeAmlHit',
    summary:
      "Marks one AML hit true match or false positive, with a reason; audited. A false positive is not raised again for the same person until the entity's record or the person's data changes; a sanctions true match forbids approval.",
    tag: 'AML',
    operation: DisposeAmlHitDocument,
    params: HitParams,
    body: z
      .object({
        disposition: z.enum(['true_match', 'false_positive']),
        reason: z.string().trim().min(1).max(AML_DISPOSITION_REASON_MAX),
      })
      .strict(),
    variables: ({ params, body }) => ({
      sessionId: params.session_id,
      entityId: params.entity_id,
      disposition: body.disposition,
      reason: body.reason,
    }),
    status: 200,
    present: (data) => presentDisposition(data.disposeAmlHit),
    response: AmlHitDispositionJson,
  }),
];
