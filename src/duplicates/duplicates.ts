/**
 * Replayed selfies and duplicate identities (docs/duplicates.md), an input observer of the
 * decision flow (`Services.decisionHooks`). When a face step decides, its selfie is looked up among
 * the selfies already submitted in the tenant and environment (`selfie_reused`: the same bytes or
 * the same picture re-encoded → review), and its face among earlier sessions' face templates
 * under another `vendor_data` (`duplicate_face`); when a document step decides, its number and
 * country among earlier documents (`duplicate_document`). The workflow's `duplicates` option says
 * what a duplicate does: `off`, `review` (a warning) or `decline` (the step fails). The finding
 * names the linked sessions by id in the node's details; no image is kept, only hashes and the
 * cancelable template the list gate keeps anyway. Live sessions only (sandbox results are magic values).
 *
 * Raw SQL: (b) perceptual-hash distance (`bit_count((phash # ?)::bit(64))`) and the prints'
 * upserts (`on conflict … do update`).
 */
import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema, type Session, type SessionNodeResult } from '../../entities/session.entity.js';
import type { DuplicatesPolicy } from '../../entities/workflow.entity.js';
import { documentNumberKey } from '../engines/aml/normalize.js';
import { decodeDataUri } from '../engines/data-uri.js';
import { SELFIE_MIME_TYPES } from '../engines/inputs.js';
import { FACE_MATCH_PASS_SIMILARITY } from '../engines/face/thresholds.js';
import { templateFromBytes } from '../engines/face/template.js';
import { ApiError } from '../shared/errors.js';
import { faceTemplateKey } from '../lists/face-templates.js';
import type { NodeInputObserver } from '../sessions/decision-hooks.js';
import { findDuplicateFaces, indexSessionTemplate } from './face-search.js';
import { SELFIE_REUSE_MAX_HAMMING, selfiePrint, type SelfiePrint } from './selfie-print.js';
import { storedDetailsOf } from '../sessions/stored-node-details.js';

/** Result/warning codes of the findings (CODES.md). */
export const DUPLICATE_CODES = {
  selfieReused: 'selfie_reused',
  face: 'duplicate_face',
  document: 'duplicate_document',
} as const;

/** Face template similarity from which two selfies show the same person: the face engine's "same person" threshold. */
export const DUPLICATE_FACE_SIMILARITY = FACE_MATCH_PASS_SIMILARITY;
/** Most linked sessions a finding names. */
export const DUPLICATE_LINKS_MAX = 10;

/** Label of the document fingerprint's HMAC, so it can never collide with another use of the tenant's key. */
const DOCUMENT_PRINT_LABEL = 'openkyc/duplicate-document/v1';

/**
 * The keyed fingerprint of a document: HMAC-SHA256 under the tenant's face template secret of the
 * issuing country and the normalised number (the document type is left out: the same number
 * read as a passport or an ID card is the same document). A leaked table reveals no number.
 */
export function documentPrint(secret: string, country: string, documentNumber: string): string {
  return createHmac('sha256', secret)
    .update(`${DOCUMENT_PRINT_LABEL}|${country.trim().toUpperCase()}|${documentNumberKey(documentNumber)}`)
    .digest('hex');
}

/** One finding written into a node result. */
interface Finding {
  code: string;
  sessionIds: string[];
  /** Whether the finding follows the workflow's policy (`duplicate_*`) or always asks for review (`selfie_reused`). */
  policy: Exclude<DuplicatesPolicy, 'off'>;
  message: string;
  extra?: Record<string, unknown>;
}

/** Writes a finding into the node result: the linked session ids in `details[code]`, and a warning or a failure. */
function note(row: SessionNodeResult, finding: Finding): void {
  row.details = {
    ...row.details,
    [finding.code]: { session_ids: finding.sessionIds, policy: finding.policy, ...finding.extra },
  };
  row.warnings = [...row.warnings, { code: finding.code, message: finding.message }];
  if (finding.policy === 'decline' && row.status !== 'failed') {
    row.status = 'failed';
    row.details = { ...row.details, result_code: finding.code };
  }
}

/** Earlier sessions of the scope that submitted the same selfie: the same bytes, or a perceptual hash within {@link SELFIE_REUSE_MAX_HAMMING} bits. */
async function reusedSelfie(tx: EntityManager, session: Session, print: SelfiePrint): Promise<{ ids: string[]; identical: boolean }> {
  const rows = await tx.execute<{ session_id: string; identical: boolean }[]>(
    `select session_id, sha256 = ? as identical from session_selfie_print
      where tenant_id = ? and environment = ? and session_id <> ?
        and (sha256 = ? or bit_count((phash # ?::bigint)::bit(64)) <= ?)
      order by created_at desc limit ?`,
    [
      print.sha256,
      session.tenant.id,
      session.environment,
      session.id,
      print.sha256,
      print.phash,
      SELFIE_REUSE_MAX_HAMMING,
      DUPLICATE_LINKS_MAX,
    ],
    'all',
  );
  return { ids: rows.map((row) => row.session_id), identical: rows.some((row) => row.identical) };
}

/** The face step: keep the selfie's print, index its template, and look for reuse and duplicates. */
async function observeSelfie(
  tx: EntityManager,
  session: Session,
  policy: DuplicatesPolicy,
  row: SessionNodeResult,
  print: SelfiePrint | null,
) {
  if (print) {
    const reused = await reusedSelfie(tx, session, print);
    if (reused.ids.length > 0)
      note(row, {
        code: DUPLICATE_CODES.selfieReused,
        sessionIds: reused.ids,
        policy: 'review',
        message: `This selfie was already submitted in ${reused.ids.length} other session(s): a photo reused, not taken now.`,
        extra: { identical_bytes: reused.identical },
      });
    await tx.execute(
      `insert into session_selfie_print (session_id, tenant_id, environment, sha256, phash) values (?, ?, ?, ?, ?)
       on conflict (session_id) do update set sha256 = excluded.sha256, phash = excluded.phash, created_at = now()`,
      [session.id, session.tenant.id, session.environment, print.sha256, print.phash],
      'run',
    );
  }
  // The selfie's template, as the list gate's observer stored it just before this one (no face: none).
  const [subject] = await tx.execute<{ template: Buffer; key_version: number }[]>(
    `select template, key_version from session_list_subject where session_id = ? and kind = 'face' and template is not null`,
    [session.id],
    'all',
  );
  if (!subject) return;
  const template = templateFromBytes(subject.template);
  await indexSessionTemplate(tx, session.id, template);
  if (policy === 'off') return;
  const matches = await findDuplicateFaces(tx, {
    scope: { tenantId: session.tenant.id, environment: session.environment },
    sessionId: session.id,
    vendorData: session.vendorData,
    keyVersion: Number(subject.key_version),
    probe: template,
    minSimilarity: DUPLICATE_FACE_SIMILARITY,
    limit: DUPLICATE_LINKS_MAX,
  });
  if (matches.length === 0) return;
  note(row, {
    code: DUPLICATE_CODES.face,
    sessionIds: matches.map((match) => match.sessionId),
    policy,
    message: `The same face was submitted in ${matches.length} other session(s) under another vendor_data.`,
    extra: { best_similarity: Math.round(matches[0].similarity * 1000) / 1000 },
  });
}

/** The document step: keep its keyed print and look for the same document under another vendor_data. */
async function observeDocument(
  tx: EntityManager,
  session: Session,
  policy: DuplicatesPolicy,
  row: SessionNodeResult,
  key: { version: number; secret: string },
) {
  const details = storedDetailsOf(row, 'document_verification');
  const number = details.extracted?.document_number;
  if (!number || !details.issuing_country) return;
  const fingerprint = documentPrint(key.secret, details.issuing_country, number);
  const rows = await tx.execute<{ session_id: string }[]>(
    `select p.session_id from session_document_print p join session s on s.id = p.session_id
      where p.tenant_id = ? and p.environment = ? and p.fingerprint = ? and p.key_version = ? and p.session_id <> ? and s.vendor_data <> ?
      order by p.created_at desc limit ?`,
    [session.tenant.id, session.environment, fingerprint, key.version, session.id, session.vendorData, DUPLICATE_LINKS_MAX],
    'all',
  );
  await tx.execute(
    `insert into session_document_print (session_id, tenant_id, environment, fingerprint, key_version) values (?, ?, ?, ?, ?)
     on conflict (session_id) do update set fingerprint = excluded.fingerprint, key_version = excluded.key_version, created_at = now()`,
    [session.id, session.tenant.id, session.environment, fingerprint, key.version],
    'run',
  );
  if (policy === 'off' || rows.length === 0) return;
  note(row, {
    code: DUPLICATE_CODES.document,
    sessionIds: rows.map((match) => match.session_id),
    policy,
    message: `The same document (number and country) was submitted in ${rows.length} other session(s) under another vendor_data.`,
  });
}

/**
 * The observer: prepares what it needs from the raw input outside the transaction (the selfie's
 * hashes, the tenant's key), then, once the step's result is stored and unless it asks for a
 * retake, stores the prints and notes the findings on that result before the verdict runs.
 */
export const detectDuplicates: NodeInputObserver = async (em, services, session, nodeType, input, workflow) => {
  // Sandbox results come from magic values and every sandbox happy path sends the same image:
  // only live sessions, judged by the real engines, are kept and searched.
  if (session.environment !== 'live') return undefined;
  if (nodeType !== 'biometric_kyc' && nodeType !== 'document_verification') return undefined;
  const policy = workflow.duplicates ?? 'review';
  let print: SelfiePrint | null = null;
  if (nodeType === 'biometric_kyc') {
    const selfie = (input as { selfie?: unknown }).selfie;
    if (typeof selfie !== 'string' || !selfie.startsWith('data:')) return undefined;
    try {
      print = await selfiePrint(decodeDataUri(selfie, 'selfie', SELFIE_MIME_TYPES).bytes);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  const key = nodeType === 'document_verification' ? await faceTemplateKey(em, services, session.tenant.id) : null;
  return async (tx, stored) => {
    if (stored.retake) return;
    const row = await tx.findOne(SessionNodeResultSchema, { sessionId: session.id, nodeType });
    if (!row || row.status === 'pending' || row.status === 'resubmission_requested') return;
    if (key) await observeDocument(tx, session, policy, row, key);
    else await observeSelfie(tx, session, policy, row, print);
  };
};
