/**
 * Who the `aml_screening` node of a session screens (docs/design.md "Decisions", who AML screens; audit H2).
 *
 * In a workflow with a document node, the AML node screens the identity read from the document
 * (name, date of birth and nationality, as the document engine extracted them from the MRZ or
 * chip), never what the end user types: the typed data is only compared with it, and each
 * difference is an `aml_document_mismatch` warning that sends the session to review. So the
 * screen follows whichever of the two steps completes second:
 *
 * - AML data before the document: the node stays `pending` (`result_code: awaiting_document`)
 *   and keeps the typed data; the document step screens the document identity and stores both
 *   results in one transaction. A required node that is pending holds the verdict back, so the
 *   typed data alone can never pass the screen.
 * - AML data after the document: the document identity is screened at once.
 * - A document that failed or read no name offers nothing to screen: the typed data is screened
 *   with a `document_identity_unavailable` warning, so the session goes to review at best (a
 *   failed required document declines it anyway).
 *
 * Without a document node the typed data is screened, compared with `expected_details` when the
 * session has them. The result's details say which (`screened_source`) and whom (`subject`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema } from '../../entities/session.entity.js';
import type { NodeResult, NodeType, Warning } from '../domain/types.js';
import { nameSimilarity } from '../engines/aml/score.js';
import type { AmlScreenedSource, AmlSubject, StoredAmlScreeningDetails } from '../engines/details.js';
import { amlInputOf, amlSubjectOf, type AmlScreeningInput } from '../engines/inputs.js';
import type { EngineContext, NodeEngine } from '../engines/node-engine.js';
import { keptResult } from '../engines/stored-details.js';
import { ApiError } from '../shared/errors.js';
import { storedDetailsOf } from './stored-node-details.js';

/** Warning code: what the end user typed for AML screening differs from the document's identity. */
export const AML_DOCUMENT_MISMATCH = 'aml_document_mismatch';
/** Warning code: the workflow has a document node but its result gave no identity to screen. */
export const DOCUMENT_IDENTITY_UNAVAILABLE = 'document_identity_unavailable';
/** `result_code` of an AML node that holds typed data and waits for the document result. */
export const AWAITING_DOCUMENT = 'awaiting_document';

/**
 * Lowest name similarity (0–1, the AML matcher's `nameSimilarity`) at which a typed name counts as
 * the document's: the proof-of-address name check's threshold, so spelling, order, accents and
 * initials do not raise warnings while another person's name does.
 */
export const AML_SUBJECT_NAME_MIN_SIMILARITY = 0.85;

/** A node result as this module reads it. */
type ResultView = Pick<NodeResult, 'status' | 'details'>;
/** A node result as an engine returns it. */
type EngineResult = Omit<NodeResult, 'required'>;

/** What to do with the AML node, given the typed data and the document result as they stand. */
export type AmlScreenPlan =
  { kind: 'await_document' } | { kind: 'screen'; source: AmlScreenedSource; subject: AmlSubject; warnings: Warning[] };

/** The identity a document result offers for screening, or null (failed, or no name read). */
export function documentIdentity(document: ResultView): AmlSubject | null {
  if (document.status === 'failed' || document.status === 'pending') return null;
  const extracted = storedDetailsOf(document, 'document_verification').extracted;
  const fullName = [extracted?.first_name, extracted?.last_name]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .join(' ');
  if (!fullName) return null;
  return {
    full_name: fullName,
    ...(extracted?.date_of_birth ? { date_of_birth: extracted.date_of_birth } : {}),
    ...(extracted?.nationality ? { country: extracted.nationality } : {}),
  };
}

/** The fields of `submitted` that contradict `reference`; a field missing on either side is no evidence. */
function differingFields(submitted: AmlSubject, reference: Partial<AmlSubject>): (keyof AmlSubject)[] {
  const fields: (keyof AmlSubject)[] = [];
  if (reference.full_name && nameSimilarity(submitted.full_name, reference.full_name) < AML_SUBJECT_NAME_MIN_SIMILARITY)
    fields.push('full_name');
  if (submitted.date_of_birth && reference.date_of_birth && submitted.date_of_birth !== reference.date_of_birth)
    fields.push('date_of_birth');
  if (submitted.country && reference.country && submitted.country.toUpperCase() !== reference.country.toUpperCase()) fields.push('country');
  return fields;
}

/** `aml_document_mismatch` warnings, one per typed field that contradicts the document. */
function documentMismatches(submitted: AmlSubject, document: AmlSubject): Warning[] {
  const what: Record<keyof AmlSubject, string> = { full_name: 'name', date_of_birth: 'date of birth', country: 'nationality' };
  return differingFields(submitted, document).map((field) => ({
    code: AML_DOCUMENT_MISMATCH,
    field,
    message: `The ${what[field]} typed for AML screening differs from the document's; the document's was screened.`,
  }));
}

/** The mismatch warnings the document step raises for `expected_details`, here for typed AML data. */
function expectedDetailsMismatches(submitted: AmlSubject, expected: EngineContext['expectedDetails']): Warning[] {
  if (!expected) return [];
  const reference: Partial<AmlSubject> = {
    // Half a name is no evidence against a full one.
    ...(expected.first_name && expected.last_name ? { full_name: `${expected.first_name} ${expected.last_name}` } : {}),
    ...(expected.date_of_birth ? { date_of_birth: expected.date_of_birth } : {}),
    ...(expected.country ? { country: expected.country } : {}),
  };
  const codes: Record<keyof AmlSubject, string> = {
    full_name: 'name_mismatch',
    date_of_birth: 'date_of_birth_mismatch',
    country: 'country_mismatch',
  };
  return differingFields(submitted, reference).map((field) => ({
    code: codes[field],
    field,
    message: `${field} typed for AML screening does not match expected_details.`,
  }));
}

/**
 * Decides whom the AML node screens. `document` is the document node's result (null or pending
 * while it has none); `hasDocumentNode` says whether the workflow has one at all.
 */
export function planAmlScreen(options: {
  hasDocumentNode: boolean;
  submitted: AmlScreeningInput;
  document: ResultView | null;
  expectedDetails?: EngineContext['expectedDetails'];
}): AmlScreenPlan {
  const typed = amlSubjectOf(options.submitted);
  const typedPlan = (warnings: Warning[]): AmlScreenPlan => ({
    kind: 'screen',
    source: 'submitted_data',
    subject: typed,
    warnings: [...warnings, ...expectedDetailsMismatches(typed, options.expectedDetails)],
  });
  if (!options.hasDocumentNode) return typedPlan([]);
  if (!options.document || options.document.status === 'pending') return { kind: 'await_document' };
  const identity = documentIdentity(options.document);
  if (!identity) {
    return typedPlan([
      {
        code: DOCUMENT_IDENTITY_UNAVAILABLE,
        field: 'full_name',
        message: 'The document gave no identity to screen (it failed or no name was read); the typed data was screened instead.',
      },
    ]);
  }
  return { kind: 'screen', source: 'document', subject: identity, warnings: documentMismatches(typed, identity) };
}

/**
 * The AML node result for a plan: runs the engine on the planned subject (the typed `lists`
 * kept), or, while the document is awaited, a pending result that keeps the typed data.
 */
export async function amlNodeResult(
  engine: NodeEngine,
  context: EngineContext,
  plan: AmlScreenPlan,
  submitted: AmlScreeningInput,
): Promise<EngineResult> {
  const typed = { ...amlSubjectOf(submitted), ...(submitted.lists ? { lists: submitted.lists } : {}) };
  if (plan.kind === 'await_document') {
    return {
      status: 'pending',
      provider: engine.provider,
      warnings: [],
      details: { result_code: AWAITING_DOCUMENT, submitted_data: typed },
    };
  }
  const input = amlInputOf(plan.subject, submitted.lists);
  const result = keptResult(await engine.run(input, context));
  const details: StoredAmlScreeningDetails = {
    ...(result.details as StoredAmlScreeningDetails),
    screened_source: plan.source,
    subject: plan.subject,
    ...(plan.source === 'document' ? { submitted_data: amlSubjectOf(submitted) } : {}),
  };
  return { ...result, warnings: [...result.warnings, ...plan.warnings], details };
}

/** The AML node result of a workflow without a document node: the typed data, compared with `expected_details`. */
export function screenSubmittedData(engine: NodeEngine, context: EngineContext, submitted: AmlScreeningInput): Promise<EngineResult> {
  const plan = planAmlScreen({ hasDocumentNode: false, submitted, document: null, expectedDetails: context.expectedDetails });
  return amlNodeResult(engine, context, plan, submitted);
}

/** The typed data an AML node keeps while it awaits the document, or null when it keeps none. */
export function awaitedSubmission(row: ResultView | null): AmlScreeningInput | null {
  if (!row || row.status !== 'pending' || row.details.result_code !== AWAITING_DOCUMENT) return null;
  const data = row.details.submitted_data as (Partial<AmlSubject> & { lists?: unknown }) | undefined;
  if (typeof data?.full_name !== 'string') return null;
  return amlInputOf(
    {
      full_name: data.full_name,
      ...(typeof data.date_of_birth === 'string' ? { date_of_birth: data.date_of_birth } : {}),
      ...(typeof data.country === 'string' ? { country: data.country } : {}),
    },
    Array.isArray(data.lists) ? data.lists.filter((list): list is string => typeof list === 'string') : undefined,
  );
}

/**
 * The typed data of an AML result screened before the document while sessions still screened
 * typed data (no `screened_source`): such a session, in flight when this rule was deployed, is
 * screened again from its document when it arrives. Null for results of this rule, and for old
 * sandbox results, which kept no subject.
 */
function screenedBeforeThisRule(row: ResultView | null): AmlScreeningInput | null {
  if (!row || row.status === 'pending' || row.details.screened_source !== undefined) return null;
  const details = storedDetailsOf(row, 'aml_screening');
  if (typeof details.subject?.full_name !== 'string') return null;
  return amlInputOf(details.subject, Array.isArray(details.checked_lists) ? details.checked_lists : undefined);
}

/**
 * The AML result a document or AML submission implies in a workflow with both nodes, computed
 * outside the transaction (engines never run under the session lock) from the other node's row
 * as it stood; `basis` is that row, re-checked under the lock by {@link assertLinkedBasis}.
 */
export interface LinkedAmlStep {
  /** The other node of the pair, whose row the plan was made from. */
  counterpart: NodeType;
  /** The counterpart row's status and details when read. */
  basis: string;
  /** The AML node's new result; null when this submission leaves it as it is. */
  aml: EngineResult | null;
}

/** A row's status and details, to notice that it changed between planning and the locked write. */
function basisOf(row: ResultView | null): string {
  return JSON.stringify(row ? [row.status, row.details] : null);
}

/** Reads a node result afresh (never from the identity map: a concurrent submission may have changed it). */
function readResult(em: EntityManager, sessionId: string, nodeType: NodeType) {
  return em.findOne(SessionNodeResultSchema, { sessionId, nodeType }, { refresh: true });
}

/**
 * Prepares the AML side of a submission to a workflow with a document node: for an AML
 * submission, the screen of the document identity or the wait for it; for a document
 * submission, the screen of the document identity when typed data awaits it.
 */
export async function prepareLinkedAmlStep(options: {
  em: EntityManager;
  sessionId: string;
  nodeType: 'aml_screening' | 'document_verification';
  /** The validated AML input, for an AML submission. */
  amlInput?: AmlScreeningInput;
  /** The document engine's result, for a document submission. */
  documentResult?: ResultView;
  amlEngine: NodeEngine;
  context: EngineContext;
}): Promise<LinkedAmlStep> {
  const { em, sessionId, amlEngine, context } = options;
  if (options.nodeType === 'aml_screening') {
    const document = await readResult(em, sessionId, 'document_verification');
    const submitted = options.amlInput!;
    const plan = planAmlScreen({ hasDocumentNode: true, submitted, document, expectedDetails: context.expectedDetails });
    return {
      counterpart: 'document_verification',
      basis: basisOf(document),
      aml: await amlNodeResult(amlEngine, context, plan, submitted),
    };
  }
  const amlRow = await readResult(em, sessionId, 'aml_screening');
  const submitted = awaitedSubmission(amlRow) ?? screenedBeforeThisRule(amlRow);
  if (!submitted) return { counterpart: 'aml_screening', basis: basisOf(amlRow), aml: null };
  const plan = planAmlScreen({
    hasDocumentNode: true,
    submitted,
    document: options.documentResult!,
    expectedDetails: context.expectedDetails,
  });
  return { counterpart: 'aml_screening', basis: basisOf(amlRow), aml: await amlNodeResult(amlEngine, context, plan, submitted) };
}

/** The counterpart row changed between planning and the locked write: plan again. */
export class LinkedStepChangedError extends Error {
  constructor() {
    super('The other step of the document/AML pair changed while this one ran.');
  }
}

/** How often a submission plans its linked AML step again after a concurrent change, before a 409. */
export const LINKED_STEP_ATTEMPTS = 3;

/**
 * Under the session lock: throws {@link LinkedStepChangedError} when the counterpart row is no
 * longer what the plan was made from; returns that row (for a document submission, the AML row
 * to update).
 */
export async function assertLinkedBasis(tx: EntityManager, sessionId: string, step: LinkedAmlStep) {
  const row = await readResult(tx, sessionId, step.counterpart);
  if (basisOf(row) !== step.basis) throw new LinkedStepChangedError();
  return row;
}

/** The 409 after {@link LINKED_STEP_ATTEMPTS} plans were each overtaken by a concurrent submission. */
export function linkedStepConflict(): ApiError {
  return new ApiError('conflict', 'The document and AML steps were submitted concurrently; retry the request.');
}
