/**
 * Raw SQL: (b) a share token is redeemed by a compare-and-set `update … returning`, and the
 * imported session is inserted with its expiry and review time computed in SQL.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { SessionNodeResultSchema, SessionSchema, type Session, type StoredReason } from '../../entities/session.entity.js';
import { LedgerEntrySchema, ShareTokenSchema, type LedgerBeneficiary } from '../../entities/share-token.entity.js';
import { auditIdentityOf, type TenantPrincipal } from '../auth/context.js';
import type { Config } from '../shared/config.js';
import { ACTIVE_STATUSES_SQL } from '../domain/session-state.js';
import { SHAREABLE_STATUSES, type SessionStatus } from '../domain/types.js';
import { ApiError, notFound, validationError } from '../shared/errors.js';
import { transactionWithEvents } from '../events/outbox.js';
import type { Services } from '../services.js';
import { reindexSession } from '../sessions/search.js';
import { assignOnReviewEntry } from '../operators/assignment.js';
import { approve } from '../sessions/approval.js';
import { approvedOnly } from '../sessions/decision.js';
import { loadSession, tenantExists } from '../sessions/read.js';
import { recordStatusChange } from '../sessions/status-audit.js';
import { notGiven } from '../shared/input-rules.js';
import { CREATE_SESSION_FIELDS } from '../sessions/session-input.js';
import { parseOrThrow } from '../shared/validation.js';

/** Lifetime of a share token when `expires_in` is omitted, in seconds (spec Limits). */
export const SHARE_TOKEN_EXPIRES_IN_DEFAULT_SECONDS = 3600;
/** Longest lifetime a share token may be given, in seconds (30 days): a share is a hand-off, not a standing grant. */
export const SHARE_TOKEN_EXPIRES_IN_MAX_SECONDS = 30 * 24 * 3600;
/** Visible prefix of share tokens, so a leaked one is recognisable in logs and secret scanners. */
export const SHARE_TOKEN_PREFIX = 'shr_';
/** Longest string we bother hashing as a share token, in characters. */
const SHARE_TOKEN_MAX_LENGTH = 200;
/** Fee of one import to each beneficiary, in micro-USD (0.15 USD; spec Limits). */
export const IMPORT_FEE_MICROS = 150_000;
/** Currency of import fees. */
export const IMPORT_FEE_CURRENCY = 'USD';
/** The two fee entries every import writes (spec Limits: 0.15 USD to the service, 0.15 USD to the originating tenant). */
const IMPORT_FEES: readonly { beneficiary: LedgerBeneficiary; amountMicros: number }[] = [
  { beneficiary: 'service', amountMicros: IMPORT_FEE_MICROS },
  { beneficiary: 'originating_tenant', amountMicros: IMPORT_FEE_MICROS },
];

/**
 * The rule of each sharing field, once: the service's camelCase schemas and the REST bodies'
 * snake_case ones (src/rest/routes/sharing.ts) are built from these.
 */
export const SHARING_FIELDS = {
  partnerApplicationId: z.uuid(),
  expiresIn: z.number().int().min(1).max(SHARE_TOKEN_EXPIRES_IN_MAX_SECONDS),
  shareToken: z.string().min(1).max(SHARE_TOKEN_MAX_LENGTH),
  /** A real boolean (no coercion). */
  trustReview: z.boolean(),
  workflowId: CREATE_SESSION_FIELDS.workflowId,
  vendorData: CREATE_SESSION_FIELDS.vendorData,
} as const;

/** Input of shareSession (GraphQL's arguments, and `POST /v1/sessions/{session_id}/share` once mapped). */
export const ShareSessionInputSchema = z
  .object({ partnerApplicationId: SHARING_FIELDS.partnerApplicationId, expiresIn: notGiven(SHARING_FIELDS.expiresIn) })
  .strict();

/** Input of importSharedSession (GraphQL's `ImportSharedSessionInput`, and `POST /v1/sessions/import-shared` once mapped). */
export const ImportSharedSessionInputSchema = z
  .object({
    shareToken: SHARING_FIELDS.shareToken,
    trustReview: SHARING_FIELDS.trustReview,
    workflowId: SHARING_FIELDS.workflowId,
    vendorData: notGiven(SHARING_FIELDS.vendorData),
  })
  .strict();

/** What shareSession accepts before validation. */
export type ShareSessionInput = z.input<typeof ShareSessionInputSchema>;
/** What importSharedSession accepts before validation: GraphQL's `ImportSharedSessionInput` as is. */
export type ImportSharedSessionInput = z.input<typeof ImportSharedSessionInputSchema>;

/** The SHA-256 (hex) under which a share token is stored and looked up. */
export function hashShareToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The refusal of a share whose partner is the sharing application itself, at share and at import. */
function shareToSelf(): ApiError {
  return new ApiError(
    'share_to_self',
    'partner_application_id is your own application; a session can only be shared with another application.',
  );
}

/** A freshly minted share token: the opaque value (shown once) and when it stops working. */
export interface MintedShareToken {
  /** The token id, stored on imported sessions and ledger entries (never the token itself). */
  id: string;
  token: string;
  expiresAt: Date;
}

/**
 * Mints a one-shot share token for one of the caller's sessions, addressed to one partner
 * application. Only approved, declined and in_review sessions share (spec rule 1); the token is
 * scoped to the session's environment, so only a key of that environment can import it.
 */
export async function shareSession(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  rawInput: ShareSessionInput,
): Promise<MintedShareToken> {
  const input = parseOrThrow(ShareSessionInputSchema, rawInput);
  const session = await loadSession(em, services, principal, sessionId);
  const partnerId = input.partnerApplicationId.toLowerCase();
  // Importing one's own share would clone one approval onto any vendor_data (audit L11).
  if (partnerId === principal.tenantId) throw shareToSelf();
  if (!SHAREABLE_STATUSES.includes(session.status)) {
    throw new ApiError(
      'session_not_shareable',
      `The session is ${session.status}; only approved, declined or in_review sessions can be shared.`,
    );
  }
  if (!(await tenantExists(em, partnerId))) {
    throw validationError([{ field: 'partnerApplicationId', code: 'unknown', message: 'no application has this id' }]);
  }
  const token = `${SHARE_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const now = new Date();
  const expiresAt = new Date(now.getTime() + (input.expiresIn ?? SHARE_TOKEN_EXPIRES_IN_DEFAULT_SECONDS) * 1000);
  const row = em.create(ShareTokenSchema, {
    id: randomUUID(),
    tokenHash: hashShareToken(token),
    tenantId: principal.tenantId,
    environment: session.environment,
    sessionId: session.id,
    partnerApplicationId: partnerId,
    createdByKeyId: auditIdentityOf(principal).keyId,
    createdAt: now,
    expiresAt,
    redeemedAt: null,
    redeemedSessionId: null,
    redeemedByKeyId: null,
  });
  await em.flush();
  return { id: row.id, token, expiresAt };
}

/** What an import answers: the new session and, only when it is approved, its level and own service token. */
export interface ImportedSession {
  session: Session;
  /** The share token that was redeemed, as the caller sent it (spec: Imported session). */
  importedFrom: string;
  /** Only when approved. */
  complianceLevel: string | null;
  /** The new session's own service token; only when approved. */
  serviceToken: string | null;
}

/** Reasons copied to the copy, without ids of the originating tenant's lists and entries. */
function copiedReasons(reasons: StoredReason[]): StoredReason[] {
  return reasons.map(({ code, message, nodeType }) => ({ code, message, ...(nodeType ? { nodeType } : {}) }));
}

/**
 * Redeems a share token and clones the verification into the caller's application: a new
 * session of the caller's workflow with the original's node results, the original's status when
 * `trust_review` is true and `in_review` otherwise, its own service token when approved, and the
 * two import fees on the ledger, all in one transaction.
 *
 * Redemption is a conditional UPDATE (`redeemed_at is null and expires_at > now()`): concurrent
 * imports of one token queue on the row lock and exactly one finds it unredeemed. Any later
 * failure in the transaction rolls the redemption back, so a rejected import never burns a token.
 */
export async function importSharedSession(
  em: EntityManager,
  services: Services,
  config: Config,
  principal: TenantPrincipal,
  rawInput: ImportSharedSessionInput,
): Promise<ImportedSession> {
  const input = parseOrThrow(ImportSharedSessionInputSchema, rawInput);
  const workflow = await services.workflows.forSession(em, principal, input.workflowId);
  const tokenHash = hashShareToken(input.shareToken);

  return transactionWithEvents(em, services.bus, async (tx, events) => {
    const token = await tx.findOne(ShareTokenSchema, { tokenHash });
    // Another application's token, or one of the other environment, is as unknown as a wrong one.
    if (!token || token.partnerApplicationId !== principal.tenantId || token.environment !== principal.environment) {
      throw notFound('Share token');
    }
    // Sharing refuses to mint these; one minted before that rule existed is refused here, unredeemed.
    if (token.tenantId === principal.tenantId) throw shareToSelf();
    const redeemed = await tx.execute<{ id: string }[]>(
      `update share_token set redeemed_at = now(), redeemed_by_key_id = ?
        where id = ? and redeemed_at is null and expires_at > now() returning id`,
      [auditIdentityOf(principal).keyId, token.id],
    );
    if (redeemed.length === 0) {
      const [current] = await tx.execute<{ redeemed_at: Date | null }[]>(`select redeemed_at from share_token where id = ?`, [token.id]);
      if (current?.redeemed_at) throw new ApiError('share_token_redeemed', 'This share token was already imported by your application.');
      throw new ApiError('share_token_expired', 'This share token has expired; ask the originating application for a new one.');
    }

    const original = await tx.findOne(SessionSchema, { id: token.sessionId });
    if (!original) throw notFound('Share token');
    if (!SHAREABLE_STATUSES.includes(original.status)) {
      throw new ApiError('session_not_shareable', `The shared session is ${original.status} and can no longer be imported.`);
    }
    const status: SessionStatus = input.trustReview ? original.status : 'in_review';
    const complianceLevel = approvedOnly(status, original.complianceLevel ?? workflow.complianceLevel);
    const vendorData = input.vendorData ?? `imported:${token.id}`;
    const reasons = copiedReasons(original.reasons);
    if (!input.trustReview) {
      reasons.push({ code: 'imported_for_review', message: `Imported without trusting the originating review (was ${original.status}).` });
    }

    const id = randomUUID();
    const inserted = await tx.execute<{ id: string }[]>(
      `insert into session (id, tenant_id, environment, workflow_id, workflow_revision, vendor_data, status, warnings, reasons, compliance_level, aml_score,
                            imported_from, created_by_key_id, created_at, updated_at, expires_at, decided_at, review_entered_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now(), now(), now() + make_interval(secs => ?), now(),
               case when ? = 'in_review' then now() end)
       on conflict (tenant_id, environment, workflow_id, vendor_data) where ${ACTIVE_STATUSES_SQL} do nothing
       returning id`,
      [
        id,
        principal.tenantId,
        principal.environment,
        workflow.id,
        workflow.publishedRevision,
        vendorData,
        status,
        JSON.stringify(original.warnings),
        JSON.stringify(reasons),
        complianceLevel,
        original.amlScore ?? null,
        token.id,
        auditIdentityOf(principal).keyId,
        config.SESSION_TTL_SECONDS,
        status,
      ],
    );
    if (inserted.length === 0) {
      // Rolls the redemption back with the rest: the partner can retry with another vendor_data.
      throw new ApiError(
        'conflict',
        `An active session of workflow ${workflow.id} with vendor_data ${vendorData} exists; import with another vendor_data.`,
      );
    }
    await tx.execute(`update share_token set redeemed_session_id = ? where id = ?`, [id, token.id]);
    const session = await tx.findOneOrFail(SessionSchema, { id });

    const now = new Date();
    for (const row of await tx.find(SessionNodeResultSchema, { sessionId: original.id })) {
      tx.create(SessionNodeResultSchema, {
        sessionId: id,
        nodeType: row.nodeType,
        status: row.status,
        required: row.required,
        provider: row.provider,
        warnings: row.warnings,
        details: row.details,
        createdAt: now,
        updatedAt: now,
      });
    }
    recordStatusChange(
      tx,
      events,
      { ...session, tenantId: principal.tenantId },
      null,
      status,
      'import',
      principal,
      `imported from share token ${token.id} (trust_review ${input.trustReview})`,
    );
    // An approval (approvedOnly gave it a level) gets its own service token.
    const serviceToken = complianceLevel === null ? null : await approve(tx, services, session, { id: workflow.id, complianceLevel });
    for (const fee of IMPORT_FEES) {
      tx.create(LedgerEntrySchema, {
        id: randomUUID(),
        environment: principal.environment,
        shareTokenId: token.id,
        originalSessionId: original.id,
        importedSessionId: id,
        payerTenantId: principal.tenantId,
        originatingTenantId: token.tenantId,
        beneficiary: fee.beneficiary,
        amountMicros: fee.amountMicros,
        currency: IMPORT_FEE_CURRENCY,
        createdAt: now,
      });
    }
    await tx.flush();
    // The imported document's names and number are searchable in the importing tenant's console.
    await reindexSession(tx, services.secrets, session.id);
    if (status === 'in_review') await assignOnReviewEntry(tx, { id, tenantId: principal.tenantId, environment: principal.environment });
    return { session, importedFrom: input.shareToken, complianceLevel, serviceToken };
  });
}
