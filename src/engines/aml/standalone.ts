/**
 * Standalone AML screening (`POST /v1/aml`, GraphQL `screenAml`): validates the body, screens it
 * with the engine of the key's environment (the stored lists for live keys, the sandbox's magic
 * names for sandbox keys, as in a session) and keeps the result in `check_run` (kind `aml`) for
 * the tenant's audit (src/engines/standalone.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { TenantScope } from '../../auth/context.js';
import { ApiError } from '../../errors.js';
import type { Services } from '../../services.js';
import { runStandaloneCheck } from '../standalone.js';
import { AML_LISTS, type AmlList } from './entity.js';
import { isListScreeningEngine } from './engine.js';
import type { MatchedField } from './score.js';
import { amlNodeStatus } from '../../domain/node-outcome.js';
import { parseOrThrow } from '../../validation.js';
import { CountryCodeAnyCase, IsoDate } from '../../sessions/node-inputs.js';

/** Longest accepted `full_name`, in characters; real names are far shorter, and scoring is quadratic in tokens. */
export const AML_FULL_NAME_MAX_LENGTH = 300;

/** Body of `POST /v1/aml` (docs/design.md "Smaller decisions": only full_name is required; lists default to every list). */
export const ScreenAmlInputSchema = z
  .object({
    full_name: z.string().trim().min(1, 'full_name must not be empty').max(AML_FULL_NAME_MAX_LENGTH),
    date_of_birth: IsoDate.optional(),
    country: CountryCodeAnyCase.optional(),
    lists: z.array(z.enum(AML_LISTS)).min(1, 'give at least one list, or omit lists to screen every list').optional(),
  })
  .strict();

/** Accepted input of screenAml. */
export type ScreenAmlInput = z.input<typeof ScreenAmlInputSchema>;

/** One hit of the AML result (the spec leaves the item shape open; docs/design.md "Smaller decisions" fixes it here). */
export interface AmlResultHit {
  /** `SOURCE_LIST:source_id`, stable across re-imports of the list. */
  entity_id: string;
  /** List the entity is on. */
  list: AmlList;
  /** The listed name or alias that matched best. */
  matched_name: string;
  /** The entity's primary name. */
  name: string;
  /** 0–100. */
  score: number;
  /** Query fields that agreed: `name`, `date_of_birth`, `country`. */
  matched_fields: MatchedField[];
  /** Sanctions programmes. */
  programs: string[];
  /** Risk topics (`sanction`, `role.pep`, ...). */
  topics: string[];
}

/** The spec's AML result. */
export interface AmlResult {
  /** Id of the stored check. */
  aml_id: string;
  /** 1 (low) to 5 (high). */
  risk_band: number;
  /** Potential matches, best first. */
  hits: AmlResultHit[];
  /** 0–100: the best hit's score, 0 without hits. */
  score: number;
  /** Exactly the lists screened. */
  checked_lists: AmlList[];
}

/** Screens one person with the engine of the key's environment and stores the result for the tenant's environment. */
export async function screenAml(em: EntityManager, services: Services, scope: TenantScope, input: unknown): Promise<AmlResult> {
  const data = parseOrThrow(ScreenAmlInputSchema, input);
  return runStandaloneCheck(em, services, scope, 'aml_screening', data, async (engine, context, id) => {
    if (!isListScreeningEngine(engine)) throw new ApiError('provider_unavailable', `${engine.provider} cannot screen standalone.`);
    const screening = await engine.screen(
      {
        full_name: data.full_name,
        ...(data.date_of_birth ? { date_of_birth: data.date_of_birth } : {}),
        ...(data.country ? { country: data.country } : {}),
      },
      data.lists ?? AML_LISTS,
    );
    const result: AmlResult = {
      aml_id: id,
      risk_band: screening.risk_band,
      hits: screening.hits.map((hit) => ({
        entity_id: hit.entity_id,
        list: hit.source_list,
        matched_name: hit.matched_name,
        name: hit.name,
        score: hit.score,
        matched_fields: hit.matched_fields,
        programs: hit.programs,
        topics: hit.topics,
      })),
      score: screening.score,
      checked_lists: screening.checked_lists,
    };
    // A standalone check has no workflow: its status is what the default threshold (the context's) would make of it.
    return { status: amlNodeStatus(result.score, result.hits.length, context.amlScoreThreshold), result, stored: { ...result } };
  });
}
