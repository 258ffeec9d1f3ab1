/**
 * Standalone AML screening (`POST /v1/aml`, GraphQL `screenAml`): validates the input, screens it
 * with the engine of the key's environment (the stored lists for live keys, the sandbox's magic
 * names for sandbox keys, as in a session) and keeps the result in `check_run` (kind `aml`) for
 * the tenant's audit (src/checks/run-check.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { TenantScope } from '../auth/context.js';
import { ApiError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { runStandaloneCheck } from './run-check.js';
import { isListScreeningEngine } from '../engines/aml/engine.js';
import { AML_LISTS, type AmlList } from '../engines/aml/entity.js';
import type { AmlHit, HitExplanation, MatchedField } from '../engines/aml/score.js';
import { amlNodeStatus } from '../domain/node-outcome.js';
import { parseOrThrow } from '../shared/validation.js';
import { CountryCodeAnyCase, definedFields, IsoDate, notGiven } from '../shared/input-rules.js';

/** Longest accepted `full_name`, in characters; real names are far shorter, and scoring is quadratic in tokens. */
export const AML_FULL_NAME_MAX_LENGTH = 300;

/** The rule of each screenAml field, once: the service's camelCase schema and the REST body's snake_case one are built from these. */
export const SCREEN_AML_FIELDS = {
  fullName: z.string().trim().min(1, 'must not be empty').max(AML_FULL_NAME_MAX_LENGTH),
  dateOfBirth: IsoDate,
  country: CountryCodeAnyCase,
  lists: z.array(z.enum(AML_LISTS)).min(1, 'give at least one list, or omit lists to screen every list'),
} as const;

/** Input of screenAml (docs/design.md "Smaller decisions": only fullName is required; lists default to every list). */
export const ScreenAmlInputSchema = z
  .object({
    fullName: SCREEN_AML_FIELDS.fullName,
    dateOfBirth: notGiven(SCREEN_AML_FIELDS.dateOfBirth),
    country: notGiven(SCREEN_AML_FIELDS.country),
    lists: notGiven(SCREEN_AML_FIELDS.lists),
  })
  .strict();

/** What screenAml accepts before validation: GraphQL's `ScreenAmlInput` as is. */
export type ScreenAmlInput = z.input<typeof ScreenAmlInputSchema>;

/** One hit of the AML result (the spec leaves the item shape open; docs/design.md "Smaller decisions" fixes it here). */
export interface AmlResultHit {
  /** `SOURCE_LIST:source_id`, stable across re-imports of the list. */
  entityId: string;
  /** List the entity is on. */
  list: AmlList;
  /** The listed name or alias that matched best. */
  matchedName: string;
  /** The entity's primary name. */
  name: string;
  /** 0–100. */
  score: number;
  /** Query fields that agreed: `name`, `date_of_birth`, `country`. */
  matchedFields: MatchedField[];
  /** Sanctions programmes. */
  programs: string[];
  /** Risk topics (`sanction`, `role.pep`, ...). */
  topics: string[];
  /** Why the hit scored so (score.ts HitExplanation); null for sandbox hits. */
  explanation: AmlHitExplanation | null;
}

/** Why a hit scored so: the engine's explanation (score.ts HitExplanation) as GraphQL returns it; REST writes it with explanationJson. */
export type AmlHitExplanation = HitExplanation;

/** An explanation as the spec's JSON writes it (snake_case, in this field order), for REST and the stored check. */
function explanationJson(e: AmlHitExplanation) {
  return {
    matched_name_kind: e.matchedNameKind,
    query_form: e.queryForm,
    listed_form: e.listedForm,
    method: e.method,
    token_matches: e.tokenMatches.map((m) => ({
      query_token: m.queryToken,
      listed_token: m.listedToken,
      credit: m.credit,
      weight: m.weight,
      kind: m.kind,
    })),
    unmatched_query_tokens: e.unmatchedQueryTokens,
    unmatched_listed_tokens: e.unmatchedListedTokens,
    name_factors: e.nameFactors.map((f) => ({ reason: f.reason, factor: f.factor })),
    name_similarity: e.nameSimilarity,
    name_points: e.namePoints,
    date_of_birth: { outcome: e.dateOfBirth.outcome, points: e.dateOfBirth.points, listed: e.dateOfBirth.listed },
    country: { outcome: e.country.outcome, points: e.country.points, listed: e.country.listed },
    summary: e.summary,
  };
}

/** The spec's AML result. */
export interface AmlResult {
  /** Id of the stored check. */
  amlId: string;
  /** 1 (low) to 5 (high). */
  riskBand: number;
  /** Potential matches, best first. */
  hits: AmlResultHit[];
  /** 0–100: the best hit's score, 0 without hits. */
  score: number;
  /** Exactly the lists screened. */
  checkedLists: AmlList[];
}

/** The AML result as the spec writes it (snake_case): the REST body and the stored check, from one mapping. */
export function amlResultJson(result: AmlResult) {
  return {
    aml_id: result.amlId,
    risk_band: result.riskBand,
    hits: result.hits.map((hit) => ({
      entity_id: hit.entityId,
      list: hit.list,
      matched_name: hit.matchedName,
      name: hit.name,
      score: hit.score,
      matched_fields: hit.matchedFields,
      programs: hit.programs,
      topics: hit.topics,
      explanation: hit.explanation ? explanationJson(hit.explanation) : null,
    })),
    score: result.score,
    checked_lists: result.checkedLists,
  };
}

/** A hit of the name index as the AML result reports it. */
function resultHitOf(hit: AmlHit): AmlResultHit {
  return {
    entityId: hit.entityId,
    list: hit.sourceList,
    matchedName: hit.matchedName,
    name: hit.name,
    score: hit.score,
    matchedFields: hit.matchedFields,
    programs: hit.programs,
    topics: hit.topics,
    explanation: hit.explanation ?? null,
  };
}

/** Screens one person with the engine of the key's environment and stores the result for the tenant's environment. */
export async function screenAml(em: EntityManager, services: Services, scope: TenantScope, input: ScreenAmlInput): Promise<AmlResult> {
  const data = parseOrThrow(ScreenAmlInputSchema, input);
  return runStandaloneCheck(em, services, scope, 'aml_screening', data, async (engine, context, id) => {
    if (!isListScreeningEngine(engine)) throw new ApiError('provider_unavailable', `${engine.provider} cannot screen standalone.`);
    const screening = await engine.screen(
      { fullName: data.fullName, ...definedFields({ dateOfBirth: data.dateOfBirth, country: data.country }) },
      data.lists ?? AML_LISTS,
    );
    const result: AmlResult = {
      amlId: id,
      riskBand: screening.riskBand,
      hits: screening.hits.map(resultHitOf),
      score: screening.score,
      checkedLists: screening.checkedLists,
    };
    // A standalone check has no workflow: its status is what the default threshold (the context's) would make of it.
    return { status: amlNodeStatus(result.score, result.hits.length, context.amlScoreThreshold), result, stored: amlResultJson(result) };
  });
}
