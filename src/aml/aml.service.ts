/**
 * Standalone AML screening (`POST /v1/aml`, GraphQL `screenAml`): validates the body, screens it
 * against the stored lists and keeps the result in `check_run` (kind `aml`) for the tenant's audit.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { CheckRunSchema } from '../../entities/check-run.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import type { TenantScope } from '../auth/context.js';
import { AML_LISTS, type AmlList } from '../engines/aml/entity.js';
import type { MatchedField } from '../engines/aml/score.js';
import type { AmlNameIndex } from '../engines/aml/name-index.js';
import { screenStored } from '../engines/aml/store.js';
import { amlNodeStatus } from '../domain/node-outcome.js';
import { parseOrThrow } from '../validation.js';
import { DEFAULT_AML_SCORE_THRESHOLD } from '../domain/workflow.js';
import { CountryCodeAnyCase } from '../sessions/node-inputs.js';

/** Longest accepted `full_name`, in characters; real names are far shorter, and scoring is quadratic in tokens. */
export const AML_FULL_NAME_MAX_LENGTH = 300;

/** A calendar date `YYYY-MM-DD` that exists (no 2024-02-30). */
export const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'must be a real calendar date YYYY-MM-DD');

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

/** Screens one person and stores the result for the tenant's environment; `index` is the server's in-memory name index, if any. */
export async function screenAml(em: EntityManager, scope: TenantScope, input: unknown, index?: AmlNameIndex | null): Promise<AmlResult> {
  const data = parseOrThrow(ScreenAmlInputSchema, input);
  const lists = data.lists ?? [...AML_LISTS];
  const screening = await screenStored(
    em,
    {
      full_name: data.full_name,
      ...(data.date_of_birth ? { date_of_birth: data.date_of_birth } : {}),
      ...(data.country ? { country: data.country } : {}),
    },
    lists,
    index,
  );
  const result: AmlResult = {
    aml_id: randomUUID(),
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
  em.create(CheckRunSchema, {
    id: result.aml_id,
    tenant: em.getReference(TenantSchema, scope.tenantId),
    environment: scope.environment,
    kind: 'aml',
    // A standalone check has no workflow: its status is what the default threshold would make of it.
    status: amlNodeStatus(result.score, result.hits.length, DEFAULT_AML_SCORE_THRESHOLD),
    result: { ...result },
    metadata: null,
    createdAt: new Date(),
  });
  await em.flush();
  return result;
}
