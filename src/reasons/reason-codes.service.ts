/**
 * A tenant's own reason codes (issue 24): beside the built-in catalogue (src/domain/reasons.ts),
 * one set per tenant and environment that reviewers pick from when they decline or ask for a
 * retake. A tenant code picks one of the catalogue's honest sentences for the person
 * (`end_user_message`), so the person reads it in every language the hosted flow speaks.
 *
 * Raw SQL: (b) a code is added by `insert … on conflict do nothing returning`, so a duplicate is a
 * 409 without a failed statement.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ReasonCodeSchema } from '../../entities/tenant-settings.entity.js';
import type { TenantScope } from '../auth/context.js';
import {
  builtInReason,
  END_USER_MESSAGES,
  REASON_CATALOGUE,
  REASON_CATEGORIES,
  REASON_CODE_PATTERN,
  REASON_SEVERITIES,
  type EndUserMessage,
  type ReasonCategory,
  type ReasonDefinition,
  type ReasonSeverity,
} from '../domain/reasons.js';
import { ApiError, validationError, type FieldError } from '../shared/errors.js';

/** A reason code as the API lists it: the catalogue's fields plus whether it is built in. */
export interface ReasonCodeRecord extends ReasonDefinition {
  /** true for the built-in catalogue (read-only), false for the tenant's own codes. */
  builtIn: boolean;
}

/** What a tenant sends to add a code. */
export interface ReasonCodeInput {
  code: string;
  category: string;
  severity: string;
  retryable: boolean;
  reviewerText: string;
  endUserMessage: string;
}

/** Longest reviewer sentence a tenant code may carry (one sentence, not a document). */
export const REVIEWER_TEXT_MAX = 300;

interface Row {
  code: string;
  category: ReasonCategory;
  severity: ReasonSeverity;
  retryable: boolean;
  reviewer_text: string;
  end_user_message: EndUserMessage;
}

function toDefinition(row: Row): ReasonDefinition {
  return {
    code: row.code,
    category: row.category,
    severity: row.severity,
    retryable: row.retryable,
    reviewer: row.reviewer_text,
    endUser: row.end_user_message,
  };
}

/** The tenant's own codes in one environment, oldest first. */
export async function customReasons(em: EntityManager, scope: TenantScope): Promise<ReasonDefinition[]> {
  const rows = await em.find(
    ReasonCodeSchema,
    { tenantId: scope.tenantId, environment: scope.environment },
    { orderBy: { createdAt: 'asc', code: 'asc' } },
  );
  return rows.map((row) => ({
    code: row.code,
    category: row.category,
    severity: row.severity,
    retryable: row.retryable,
    reviewer: row.reviewerText,
    endUser: row.endUserMessage as EndUserMessage,
  }));
}

/** Every code reviewers of this tenant and environment may pick: the built-in catalogue, then the tenant's own. */
export async function listReasonCodes(em: EntityManager, scope: TenantScope): Promise<ReasonCodeRecord[]> {
  const custom = await customReasons(em, scope);
  return [...REASON_CATALOGUE.map((reason) => ({ ...reason, builtIn: true })), ...custom.map((reason) => ({ ...reason, builtIn: false }))];
}

/** The definition of a code for this tenant and environment, or a 400 naming `field` when neither catalogue has it. */
export async function requireReasonCode(em: EntityManager, scope: TenantScope, code: string, field: string): Promise<ReasonDefinition> {
  const builtIn = builtInReason(code);
  if (builtIn) return builtIn;
  const custom = (await customReasons(em, scope)).find((reason) => reason.code === code);
  if (custom) return custom;
  throw validationError([
    {
      field,
      code: 'unknown_reason_code',
      message: `${code} is neither a built-in reason code nor one of this environment's own (GET /v1/reason-codes)`,
    },
  ]);
}

function validate(input: ReasonCodeInput): FieldError[] {
  const errors: FieldError[] = [];
  const oneOf = (field: string, value: unknown, allowed: readonly string[]) => {
    if (typeof value !== 'string' || !allowed.includes(value))
      errors.push({ field, code: 'invalid', message: `${field} must be one of ${allowed.join(', ')}` });
  };
  if (typeof input.code !== 'string' || !REASON_CODE_PATTERN.test(input.code))
    errors.push({
      field: 'code',
      code: 'invalid',
      message: 'code must be snake_case: a lowercase letter, then 2 to 63 lowercase letters, digits or _',
    });
  else if (builtInReason(input.code))
    errors.push({ field: 'code', code: 'reserved', message: `${input.code} is a built-in reason code; choose another` });
  oneOf('category', input.category, REASON_CATEGORIES);
  oneOf('severity', input.severity, REASON_SEVERITIES);
  oneOf('end_user_message', input.endUserMessage, END_USER_MESSAGES);
  if (typeof input.retryable !== 'boolean')
    errors.push({ field: 'retryable', code: 'invalid', message: 'retryable must be true or false' });
  const text = typeof input.reviewerText === 'string' ? input.reviewerText.trim() : '';
  if (!text) errors.push({ field: 'reviewer_text', code: 'required', message: 'reviewer_text is the sentence reviewers read' });
  else if (text.length > REVIEWER_TEXT_MAX)
    errors.push({ field: 'reviewer_text', code: 'too_long', message: `reviewer_text must be at most ${REVIEWER_TEXT_MAX} characters` });
  return errors;
}

/** Adds a code of the tenant's own in one environment: 400 on bad fields or a built-in code, 409 when it exists. */
export async function createReasonCode(em: EntityManager, scope: TenantScope, input: ReasonCodeInput): Promise<ReasonCodeRecord> {
  const errors = validate(input);
  if (errors.length > 0) throw validationError(errors);
  const rows = await em.execute<Row[]>(
    `insert into reason_code (tenant_id, environment, code, category, severity, retryable, reviewer_text, end_user_message)
      values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing
      returning code, category, severity, retryable, reviewer_text, end_user_message`,
    [
      scope.tenantId,
      scope.environment,
      input.code,
      input.category,
      input.severity,
      input.retryable,
      input.reviewerText.trim(),
      input.endUserMessage,
    ],
  );
  if (rows.length === 0) throw new ApiError('conflict', `Reason code ${input.code} already exists in this environment.`);
  return { ...toDefinition(rows[0]), builtIn: false };
}

/** Removes a code of the tenant's own (decisions that used it keep its category and retryable); 404 when none. */
export async function deleteReasonCode(em: EntityManager, scope: TenantScope, code: string): Promise<void> {
  const deleted = await em.nativeDelete(ReasonCodeSchema, { tenantId: scope.tenantId, environment: scope.environment, code });
  if (deleted === 0) throw new ApiError('not_found', `No reason code ${code} of this environment's own.`);
}
