import { z } from 'zod';
import { SESSION_STATUSES } from '../../domain/types.js';
import {
  ImportSharedSessionDocument,
  ListLedgerEntriesDocument,
  ShareSessionDocument,
  type LedgerEntryFieldsFragment,
} from '../../graphql/generated/operations.js';
import { LEDGER_PAGE_DEFAULT, LEDGER_PAGE_MAX } from '../../sharing/ledger.service.js';
import { SHARING_FIELDS as fields } from '../../sharing/sharing.service.js';
import { defineRoute } from '../route.js';

/** Body of `POST /v1/sessions/{session_id}/share` (snake_case, as the spec writes it), from the service's field rules. */
const ShareSessionBody = z
  .object({ partner_application_id: fields.partnerApplicationId, expires_in: fields.expiresIn.optional() })
  .strict();

/** Body of `POST /v1/sessions/import-shared`; `trust_review` must be a real boolean (no coercion). */
const ImportSharedSessionBody = z
  .object({
    share_token: fields.shareToken,
    trust_review: fields.trustReview,
    workflow_id: fields.workflowId,
    vendor_data: fields.vendorData.optional(),
  })
  .strict();

/** The spec's Share token result. */
export const ShareTokenJson = z.object({ share_token: z.string(), expires_at: z.number().int() });

/** The spec's Imported session; `compliance_level` and `service_token` only when approved. */
export const ImportedSessionJson = z.object({
  session_id: z.string(),
  imported_from: z.string(),
  status: z.enum(SESSION_STATUSES),
  compliance_level: z.string().optional(),
  service_token: z.string().optional(),
});

/** One import fee as JSON. */
export const LedgerEntryJson = z.object({
  entry_id: z.string(),
  environment: z.enum(['live', 'sandbox']),
  share_token_id: z.string(),
  original_session_id: z.string(),
  imported_session_id: z.string(),
  payer_application_id: z.string(),
  originating_application_id: z.string(),
  beneficiary: z.enum(['service', 'originating_tenant']),
  beneficiary_application_id: z.string().optional(),
  amount: z.string(),
  amount_micros: z.number().int(),
  currency: z.string(),
  created_at: z.number().int(),
});

/** Shapes a ledger entry, leaving out fields that do not apply. */
function presentLedgerEntry(entry: LedgerEntryFieldsFragment): z.infer<typeof LedgerEntryJson> {
  return {
    entry_id: entry.id,
    environment: entry.environment,
    share_token_id: entry.shareTokenId,
    original_session_id: entry.originalSessionId,
    imported_session_id: entry.importedSessionId,
    payer_application_id: entry.payerApplicationId,
    originating_application_id: entry.originatingApplicationId,
    beneficiary: entry.beneficiary,
    ...(entry.beneficiaryApplicationId ? { beneficiary_application_id: entry.beneficiaryApplicationId } : {}),
    amount: entry.amount,
    amount_micros: entry.amountMicros,
    currency: entry.currency,
    created_at: entry.createdAt,
  };
}

const SessionParams = z.object({ session_id: z.string().min(1).max(100) });

/** Share, import and ledger routes. */
export const sharingRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/import-shared',
    operationId: 'importSharedSession',
    summary:
      "Redeems a share token (once per partner application) and clones the verification into the caller's application; 404 unknown token, 409 redeemed, 410 expired.",
    tag: 'Sharing',
    operation: ImportSharedSessionDocument,
    body: ImportSharedSessionBody,
    variables: ({ body }) => ({
      input: { shareToken: body.share_token, trustReview: body.trust_review, workflowId: body.workflow_id, vendorData: body.vendor_data },
    }),
    status: 201,
    present: ({ importSharedSession: imported }) => ({
      session_id: imported.sessionId,
      imported_from: imported.importedFrom,
      status: imported.status,
      ...(imported.complianceLevel ? { compliance_level: imported.complianceLevel } : {}),
      ...(imported.serviceToken ? { service_token: imported.serviceToken } : {}),
    }),
    response: ImportedSessionJson,
    problems: ['not_found', 'share_to_self', 'share_token_redeemed', 'share_token_expired', 'session_not_shareable'],
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/sessions/:session_id/share',
    operationId: 'shareSession',
    summary:
      'Mints a one-time share token for an approved, declined or in_review session (409 otherwise), addressed to one partner other than the caller (400 share_to_self).',
    tag: 'Sharing',
    operation: ShareSessionDocument,
    params: SessionParams,
    body: ShareSessionBody,
    variables: ({ params, body }) => ({
      sessionId: params.session_id,
      partnerApplicationId: body.partner_application_id,
      expiresIn: body.expires_in,
    }),
    status: 200,
    present: ({ shareSession }) => ({ share_token: shareSession.shareToken, expires_at: shareSession.expiresAt }),
    response: ShareTokenJson,
    problems: ['share_to_self', 'session_not_shareable'],
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/ledger',
    operationId: 'listLedgerEntries',
    summary: "Import fees of the caller's imports and of imports of its sessions (both entries of each), newest first.",
    tag: 'Sharing',
    operation: ListLedgerEntriesDocument,
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(LEDGER_PAGE_MAX).default(LEDGER_PAGE_DEFAULT),
        cursor: z.string().min(1).optional(),
      })
      .strict(),
    variables: ({ query }) => ({ first: query.limit, after: query.cursor }),
    status: 200,
    present: ({ ledgerEntries }) => ({
      entries: ledgerEntries.edges.map((edge) => presentLedgerEntry(edge.node)),
      has_more: ledgerEntries.pageInfo.hasNextPage,
      ...(ledgerEntries.pageInfo.hasNextPage && ledgerEntries.pageInfo.endCursor ? { next_cursor: ledgerEntries.pageInfo.endCursor } : {}),
    }),
    response: z.object({ entries: z.array(LedgerEntryJson), has_more: z.boolean(), next_cursor: z.string().optional() }),
  }),
];
