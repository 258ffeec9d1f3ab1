/**
 * List gating while a session is decided (docs/design.md "Decisions", "Lists"). Documents and names
 * are gated by fingerprint, faces by cosine similarity of the session's selfie template to the
 * tenant's face entries. Everything is read through the decision transaction: a deleted entry
 * gates nothing from its commit on, on every instance, since nothing is cached.
 *
 * Raw SQL: (b) a session's list subject is an upsert (`on conflict … do update`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Session } from '../../entities/session.entity.js';
import { SessionNodeResultSchema } from '../../entities/session.entity.js';
import type { ListHit, NodeResult, NodeType } from '../domain/types.js';
import type { StoredDocumentVerificationDetails } from '../engines/details.js';
import type { AmlScreeningInput } from '../engines/inputs.js';
import { FACE_MATCH_PASS_SIMILARITY } from '../engines/face/thresholds.js';
import { templateBytes, templateFromBytes } from '../engines/face/template.js';
import { isClientError } from '../shared/errors.js';
import type { DecisionHooks, NodeInputObserver } from '../sessions/decision-hooks.js';
import { matchFaces } from './face-index.js';
import { templateOfImage } from './face-templates.js';
import { documentFingerprint, nameFingerprint } from './list.service.js';
import { storedDetailsOf } from '../sessions/stored-node-details.js';

/** Template cosine similarity at or above which a selfie matches a listed face: the face engine's "same person" threshold (v3 templates keep the cosine, docs/face.md). */
export const FACE_LIST_MATCH_SIMILARITY = FACE_MATCH_PASS_SIMILARITY;

/** One value of the session to look up among the tenant's fingerprint entries. */
interface FingerprintProbe {
  nodeType: NodeType;
  entryType: 'document' | 'name';
  fingerprint: string;
}

/** The fingerprints a document result offers: the document itself and the holder's name. */
function documentProbes(details: Partial<StoredDocumentVerificationDetails> | undefined): FingerprintProbe[] {
  if (!details) return [];
  const probes: FingerprintProbe[] = [];
  const number = details.extracted?.document_number;
  if (number && details.issuing_country && details.document_type) {
    probes.push({
      nodeType: 'document_verification',
      entryType: 'document',
      fingerprint: documentFingerprint(details.issuing_country, details.document_type, number),
    });
  }
  const name = [details.extracted?.first_name, details.extracted?.last_name].filter(Boolean).join(' ');
  if (name.trim()) probes.push({ nodeType: 'document_verification', entryType: 'name', fingerprint: nameFingerprint(name) });
  return probes;
}

/** Stored gate material of a session (see {@link captureListSubjects}). */
interface SubjectRow {
  node_type: NodeType;
  kind: 'face' | 'name';
  fingerprint: string | null;
  template: Buffer | null;
  key_version: number | null;
}

/** The list hits of a session, read through `tx` only; also notes them on the node results that matched. */
export async function findListHits(
  tx: EntityManager,
  session: Session,
  nodeResults: Partial<Record<NodeType, NodeResult>>,
): Promise<ListHit[]> {
  const scope = { tenantId: session.tenant.id, environment: session.environment };
  const subjects = await tx.execute<SubjectRow[]>(
    'select node_type, kind, fingerprint, template, key_version from session_list_subject where session_id = ?',
    [session.id],
    'all',
  );
  const probes = documentProbes(storedDetailsOf(nodeResults.document_verification, 'document_verification'));
  for (const subject of subjects) {
    if (subject.kind === 'name' && subject.fingerprint)
      probes.push({ nodeType: subject.node_type, entryType: 'name', fingerprint: subject.fingerprint });
  }

  const matches: { nodeType: NodeType; entryId: string; listId: string }[] = [];
  if (probes.length > 0) {
    const rows = await tx.execute<{ id: string; list_id: string; entry_type: string; fingerprint: string }[]>(
      `select id, list_id, entry_type, fingerprint from list_entry
        where tenant_id = ? and environment = ? and entry_type in ('document', 'name') and fingerprint in (?)`,
      [scope.tenantId, scope.environment, probes.map((probe) => probe.fingerprint)],
      'all',
    );
    for (const probe of probes) {
      for (const row of rows) {
        if (row.entry_type === probe.entryType && row.fingerprint === probe.fingerprint)
          matches.push({ nodeType: probe.nodeType, entryId: row.id, listId: row.list_id });
      }
    }
  }

  const face = subjects.find((subject) => subject.kind === 'face' && subject.template && subject.key_version !== null);
  if (face?.template) {
    const faceMatches = await matchFaces(tx, scope, Number(face.key_version), templateFromBytes(face.template), FACE_LIST_MATCH_SIMILARITY);
    for (const match of faceMatches) matches.push({ nodeType: face.node_type, entryId: match.entryId, listId: match.listId });
  }
  if (matches.length === 0) return [];

  const lists = await tx.execute<{ id: string; name: string; policy: 'auto_decline' | 'review' }[]>(
    'select id, name, policy from list where id in (?)',
    [[...new Set(matches.map((match) => match.listId))]],
    'all',
  );
  const byId = new Map(lists.map((list) => [list.id, list]));
  const seen = new Set<string>();
  const hits: ListHit[] = [];
  for (const match of matches) {
    const list = byId.get(match.listId);
    const key = `${match.nodeType}/${match.entryId}`;
    if (!list || seen.has(key)) continue;
    seen.add(key);
    hits.push({ listId: list.id, listName: list.name, entryId: match.entryId, policy: list.policy, nodeType: match.nodeType });
  }
  await noteHitsOnNodeResults(tx, session.id, hits);
  return hits;
}

/** Writes `list_hits` into the details of each node result that matched, so the node result says which list and entry gated. */
async function noteHitsOnNodeResults(tx: EntityManager, sessionId: string, hits: ListHit[]): Promise<void> {
  const nodeTypes = [...new Set(hits.map((hit) => hit.nodeType))];
  for (const nodeType of nodeTypes) {
    const row = await tx.findOne(SessionNodeResultSchema, { sessionId, nodeType });
    if (!row) continue;
    row.details = {
      ...row.details,
      list_hits: hits
        .filter((hit) => hit.nodeType === nodeType)
        .map((hit) => ({ list_id: hit.listId, list_name: hit.listName, entry_id: hit.entryId, policy: hit.policy })),
    };
  }
}

/** Stores one piece of gate material for a session, replacing what an earlier attempt left. */
async function upsertSubject(
  tx: EntityManager,
  session: Session,
  nodeType: NodeType,
  kind: 'face' | 'name',
  value: { fingerprint?: string; template?: Buffer; keyVersion?: number },
): Promise<void> {
  await tx.execute(
    `insert into session_list_subject (session_id, tenant_id, node_type, kind, fingerprint, template, key_version)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (session_id, node_type, kind)
     do update set fingerprint = excluded.fingerprint, template = excluded.template, key_version = excluded.key_version, created_at = now()`,
    [session.id, session.tenant.id, nodeType, kind, value.fingerprint ?? null, value.template ?? null, value.keyVersion ?? null],
    'run',
  );
}

/**
 * Keeps what the gate needs from a node's raw input that its result does not carry: the selfie's
 * face template (sandbox and live alike; never the image) and the name screened by AML. A
 * sandbox token or an image without exactly one face leaves nothing, so it gates nothing.
 */
export const captureListSubjects: NodeInputObserver = async (em, services, session, nodeType, input) => {
  if (nodeType === 'biometric_kyc') {
    const selfie = (input as { selfie?: unknown }).selfie;
    if (typeof selfie !== 'string' || !selfie.startsWith('data:')) return undefined;
    let made: { template: Int8Array; keyVersion: number };
    try {
      made = await templateOfImage(em, services, session.tenant.id, selfie, 'selfie');
    } catch (error) {
      // No single face (a 4xx) gates nothing; busy or timed-out engines (a 503) fail the submission,
      // or a selfie taken while they are loaded would skip the face lists and the duplicate search.
      if (isClientError(error)) return undefined;
      throw error;
    }
    const bytes = templateBytes(made.template);
    return (tx) => upsertSubject(tx, session, nodeType, 'face', { template: bytes, keyVersion: made.keyVersion });
  }
  if (nodeType === 'aml_screening') {
    const { fullName } = input as Partial<AmlScreeningInput>;
    if (typeof fullName !== 'string' || !fullName.trim()) return undefined;
    const fingerprint = nameFingerprint(fullName);
    return (tx) => upsertSubject(tx, session, nodeType, 'name', { fingerprint });
  }
  return undefined;
};

/**
 * The list gate as the decision flow's plug-ins: `findListHits` gates every decision and
 * `captureListSubjects` keeps the gate material of every input. The composition root adds them to
 * `Services.decisionHooks`, so a reader of the decision flow finds the gate there.
 */
export function createListGate(): DecisionHooks {
  return { listGates: [findListHits], inputObservers: [captureListSubjects] };
}
