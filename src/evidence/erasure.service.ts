/**
 * Raw SQL: (b) erasure rewrites warnings with `jsonb_agg` over `jsonb_array_elements`, clears the
 * details in bulk from `jsonb_to_recordset`, and deletes from a list of tables named at run time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OutboxEventSchema } from '../../entities/outbox-event.entity.js';
import { WebhookDeliverySchema } from '../../entities/webhook.entity.js';
import type { TenantPrincipal } from '../auth/context.js';
import { openPersonalData, sealPersonalData } from '../auth/personal-data.js';
import { isActive } from '../domain/session-state.js';
import { ApiError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { loadSession } from '../sessions/read.js';

/**
 * What a node result keeps after an erasure: the outcome and the checks that made the decision,
 * none of the person's data (names, dates, numbers, addresses, phone, the typed AML subject). AML
 * hits stay: they describe the listed entity, from a public list, and justify the decision.
 */
const KEPT_DETAIL_KEYS = [
  'result_code',
  'checks',
  'score',
  'risk_band',
  'similarity',
  'document_type',
  'issuing_country',
  'checked_lists',
  'screened_source',
  'hits',
  'suppressed_hits',
] as const;

/** What an erasure did. */
export interface ErasureResult {
  sessionId: string;
  erasedAt: Date;
  /** Evidence files deleted. */
  evidenceDeleted: number;
}

/**
 * Erases a decided (or expired) session's evidence and personal data on the person's request, in
 * one transaction: the kept files, the portrait embedding, list subjects, phone codes, the typed
 * details and metadata, the personal fields of node results and warning texts, and the bodies of
 * its webhook deliveries (their log rows stay). The status, the decision's reasons, the node
 * outcomes and checks, the service token and the audit trail stay. Erasing again changes nothing.
 */
export async function eraseSession(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
): Promise<ErasureResult> {
  const session = await loadSession(em, services, principal, sessionId);
  // Erasing a session still collecting input or under review would leave it undecidable.
  if (isActive(session.status))
    throw new ApiError(
      'conflict',
      `The session is ${session.status}: erase it once it is decided or expired (a pending one expires at expires_at).`,
    );
  const by = principal.kind === 'operator' ? `operator:${principal.operatorName}` : `api_key:${principal.apiKeyId}`;
  return em.transactional(async (tx) => {
    const deleted = await tx.execute<{ id: string }[]>('delete from evidence where session_id = ? returning id', [sessionId]);
    // The selfie template and prints go too: an erased session is never found as a duplicate again.
    for (const table of [
      'session_portrait',
      'session_list_subject',
      'session_selfie_print',
      'session_document_print',
      'phone_otp',
      'session_search',
    ])
      await tx.execute(`delete from ${table} where session_id = ?`, [sessionId], 'run');
    // The details are sealed at rest (src/auth/personal-data.ts): opened here, cut to the kept
    // keys, and sealed again (what is left names nobody, but a new kept key would).
    const results = await tx.execute<{ node_type: string; details: unknown }[]>(
      'select node_type, details from session_node_result where session_id = ? for update',
      [sessionId],
    );
    const kept = results.map((result) => {
      const details = openPersonalData<Record<string, unknown>>(tx as EntityManager, result.details);
      const left = Object.fromEntries(KEPT_DETAIL_KEYS.filter((key) => key in details).map((key) => [key, details[key]]));
      return { node_type: result.node_type, details: sealPersonalData(tx as EntityManager, left) };
    });
    await tx.execute(
      `update session_node_result r
          set details = x.details,
              warnings = coalesce((select jsonb_agg(jsonb_build_object('code', w->>'code', 'field', w->'field', 'message', w->>'code'))
                                     from jsonb_array_elements(r.warnings) w), '[]'::jsonb)
         from jsonb_to_recordset(?::jsonb) as x(node_type text, details jsonb)
        where r.session_id = ? and r.node_type = x.node_type`,
      [JSON.stringify(kept), sessionId],
      'run',
    );
    // The decision snapshots kept with the session's events hold the same personal fields: a
    // webhook not yet built is then built from the erased session instead.
    await tx.nativeUpdate(OutboxEventSchema, { sessionId }, { snapshot: null });
    await tx.nativeUpdate(
      WebhookDeliverySchema,
      { sessionId },
      { body: services.secrets.encrypt(JSON.stringify({ erased: true, session_id: sessionId })) },
    );
    const [row] = await tx.execute<{ erased_at: Date }[]>(
      `update session
          set expected_details = null, contact_details = null, metadata = null,
              warnings = coalesce((select jsonb_agg(jsonb_build_object('code', w->>'code', 'field', w->'field', 'message', w->>'code'))
                                     from jsonb_array_elements(warnings) w), '[]'::jsonb),
              erased_at = coalesce(erased_at, now()), erased_by = coalesce(erased_by, ?)
        where id = ?
        returning erased_at`,
      [by, sessionId],
    );
    return { sessionId, erasedAt: new Date(row!.erased_at), evidenceDeleted: deleted.length };
  });
}
