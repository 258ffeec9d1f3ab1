/** What the checks found on a case: the evidence, the identity as read, each step's result and the AML hits. */
import { ApiError, graphql } from './api.js';
import { announce, badge, h, when } from './dom.js';
import { faceEntryControl } from './lists.js';
import { linkedSessions } from './linked-sessions.js';
import { me } from './state.js';
import { EVIDENCE_LABELS, openEvidenceViewer } from './evidence-viewer.js';
import type { QueueItem } from './queue.js';
import type { Claim } from './claim.js';

/** A node's result as the case page shows it. */
export interface NodeResult {
  nodeType: string;
  status: string;
  warnings: { code: string; message: string }[];
  details: Record<string, any>;
}

/** The case page's session. */
export interface Case extends QueueItem {
  status: string;
  /** The workflow revision the session runs (issue 27); null for sessions older than revisions. */
  workflowRevision?: number | null;
  environment: string;
  /** The hosted flow's language chosen at creation, for the retake preview. */
  language?: string | null;
  expectedDetails: Record<string, string> | null;
  nodeResults: NodeResult[];
  reviewHistory: {
    actor: string;
    actorName: string | null;
    fromStatus: string | null;
    toStatus: string;
    reason: string | null;
    at: number;
  }[];
  warnings: { code: string; message: string }[];
  evidence: { id: string; kind: string; contentType: string; url: string; attempt: number }[];
  notes: { id: string; authorName: string; body: string; createdAt: number }[];
  claim: Claim | null;
  /** The AML hits with their listed entity and disposition. */
  amlHits?: CaseAmlHit[];
}

/** Personal details as given beside the document's fields as read (MRZ or OCR), a difference marked in words. */
export function identitySection(session: Case): HTMLElement {
  const document = session.nodeResults.find((node) => node.nodeType === 'document_verification');
  const extracted = (document?.details.extracted ?? {}) as Record<string, unknown>;
  const expected = session.expectedDetails ?? {};
  const fields: [string, string][] = [
    ['First name', 'first_name'],
    ['Last name', 'last_name'],
    ['Date of birth', 'date_of_birth'],
    ['Nationality', 'nationality'],
    ['Document number', 'document_number'],
    ['Expiry date', 'expiry_date'],
    ['MRZ format', 'mrz_format'],
  ];
  const text = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));
  return h(
    'section',
    { 'aria-labelledby': 'identity-heading' },
    h('h2', { id: 'identity-heading' }, 'Identity'),
    h(
      'p',
      {},
      document
        ? `Document: ${document.details.document_type ?? '?'} issued by ${document.details.issuing_country ?? '?'}.`
        : 'No document step.',
    ),
    h(
      'table',
      { tabindex: '0', id: 'identity' },
      h('caption', {}, 'Personal details given beside the document as read'),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'Given'), h('th', { scope: 'col' }, 'Document')),
      ),
      h(
        'tbody',
        {},
        ...fields
          .filter(([, key]) => expected[key] !== undefined || (extracted[key] !== null && extracted[key] !== undefined))
          .map(([label, key]) => {
            const given = expected[key];
            const read = extracted[key];
            const differs =
              given !== undefined && read !== undefined && read !== null && String(given).toLowerCase() !== String(read).toLowerCase();
            return h(
              'tr',
              { class: differs ? 'differs' : undefined },
              h('th', { scope: 'row' }, label),
              h('td', {}, text(given)),
              h('td', {}, text(read), differs ? h('strong', {}, ' (differs)') : null),
            );
          }),
      ),
    ),
  );
}

/**
 * The document front and back beside the selfie, with the similarity the face step measured.
 * Each file comes through its short-lived signed URL, and the server audits every opening. The
 * latest attempt of each kind is shown; a click (or Enter) opens it full size in the viewer
 * (evidence-viewer.ts), earlier attempts are a click away, and the document portrait (cut by the
 * server around the document's face) and the selfie open side by side with their faces at the same
 * size.
 */
export function evidenceSection(session: Case): HTMLElement {
  const attempts = new Map<string, Case['evidence']>();
  for (const item of session.evidence) attempts.set(item.kind, [...(attempts.get(item.kind) ?? []), item]);
  const face = session.nodeResults.find((node) => node.nodeType === 'biometric_kyc');
  const similarity = typeof face?.details.similarity === 'number' ? `${Math.round(face.details.similarity * 100)} %` : null;
  const open =
    (kinds: string[], attemptIds: Record<string, string> = {}) =>
    (event: Event) =>
      void openEvidenceViewer(session.id, kinds, event.currentTarget as HTMLElement, attemptIds);
  const images = (kind: string) => (attempts.get(kind) ?? []).filter((item) => item.contentType.startsWith('image/'));
  // The portrait cut from the document, when a face was found on it; else the whole front.
  const documentFace = images('document_portrait').length > 0 ? 'document_portrait' : 'document_front';
  const compare = images(documentFace).length > 0 && images('selfie').length > 0;
  return h(
    'section',
    { 'aria-labelledby': 'evidence-heading' },
    h('h2', { id: 'evidence-heading' }, 'Evidence'),
    attempts.size === 0
      ? h('p', {}, 'Nothing kept: the files were not images, or the retention period is 0 or over.')
      : h(
          'div',
          { class: 'evidence', id: 'evidence' },
          ...[...attempts.entries()].map(([kind, list]) => {
            const item = list[list.length - 1]!;
            const label = EVIDENCE_LABELS[kind] ?? kind;
            const earlier = list.slice(0, -1).filter((each) => each.contentType.startsWith('image/'));
            return h(
              'figure',
              { 'data-kind': kind },
              item.contentType.startsWith('image/')
                ? h(
                    'button',
                    { type: 'button', class: 'thumb', id: `open-${kind}`, onclick: open([kind]) },
                    h('img', { src: item.url, alt: `${label} as submitted; open full size` }),
                  )
                : h('a', { href: item.url, target: '_blank', rel: 'noopener' }, `Open the ${label.toLowerCase()} (PDF)`),
              h(
                'figcaption',
                {},
                item.kind === 'selfie' && similarity ? `${label} · similarity ${similarity}` : label,
                list.length > 1 ? ` · attempt ${item.attempt} of ${list.length}` : '',
                earlier.length
                  ? h(
                      'span',
                      { class: 'earlier-attempts' },
                      ' · earlier: ',
                      ...earlier.map((each) =>
                        h(
                          'button',
                          {
                            type: 'button',
                            class: 'link',
                            'data-attempt': String(each.attempt),
                            'aria-label': `Open ${label.toLowerCase()}, attempt ${each.attempt}`,
                            onclick: open([kind], { [kind]: each.id }),
                          },
                          `attempt ${each.attempt}`,
                        ),
                      ),
                    )
                  : null,
              ),
            );
          }),
        ),
    compare
      ? h(
          'p',
          {},
          h(
            'button',
            { type: 'button', class: 'secondary', id: 'compare-faces', onclick: open([documentFace, 'selfie']) },
            documentFace === 'document_portrait'
              ? 'Compare the document portrait and the selfie, faces at the same size'
              : 'Compare document and selfie side by side',
          ),
        )
      : null,
    attempts.has('selfie') && me().operator.role !== 'viewer' ? faceEntryControl(session.id) : null,
  );
}

/** Every node's result, warnings (in the catalogue's words where it has the code) and the checks it ran. */
export function checksSection(session: Case, catalogue: ReadonlyMap<string, CatalogueCode>): HTMLElement {
  const warningsOf = (node: NodeResult) =>
    [...new Set(node.warnings.map((warning) => catalogue.get(warning.code)?.reviewerText ?? warning.message))].join(' ') || '—';
  const face = session.nodeResults.find((node) => node.nodeType === 'biometric_kyc');
  return h(
    'section',
    { 'aria-labelledby': 'checks-heading' },
    h('h2', { id: 'checks-heading' }, 'Checks'),
    face?.details.similarity !== undefined
      ? h('p', { id: 'similarity' }, `Face similarity between document and selfie: ${Math.round(face.details.similarity * 100)} %`)
      : null,
    h(
      'table',
      { tabindex: '0' },
      h('caption', {}, 'Result of each step'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Step'),
          h('th', { scope: 'col' }, 'Result'),
          h('th', { scope: 'col' }, 'Checks'),
          h('th', { scope: 'col' }, 'Warnings'),
        ),
      ),
      h(
        'tbody',
        {},
        ...session.nodeResults.map((node) =>
          h(
            'tr',
            { 'data-node': node.nodeType },
            h('th', { scope: 'row' }, node.nodeType.replace(/_/g, ' ')),
            h('td', {}, badge(node.status)),
            h(
              'td',
              {},
              Object.entries((node.details.checks ?? {}) as Record<string, string>)
                .map(([check, result]) => `${check.replace(/_/g, ' ')}: ${result}`)
                .join(', ') ||
                (node.details.result_code ?? '—'),
            ),
            h('td', {}, warningsOf(node), linkedSessions(node.details)),
          ),
        ),
      ),
    ),
  );
}

/** One AML hit as the case page shows it (Session.amlHits). */
export interface CaseAmlHit {
  entityId: string;
  list: string;
  category: string;
  matchedName: string;
  score: number;
  foundBy: string;
  suppressed: boolean;
  entity: {
    kind: string;
    primaryName: string;
    aliases: string[];
    datesOfBirth: string[];
    countries: string[];
    programs: string[];
    topics: string[];
    sourceId: string;
  } | null;
  disposition: {
    disposition: string;
    reason: string;
    actorName: string | null;
    actor: string;
    createdAt: number;
    entityChanged: boolean;
  } | null;
}

/** The fields of Session.amlHits the case page reads. */
export const AML_HIT_FIELDS = `amlHits { entityId list category matchedName score foundBy suppressed
  entity { kind primaryName aliases datesOfBirth countries programs topics sourceId }
  disposition { disposition reason actor actorName createdAt entityChanged } }`;

const DISPOSE = `mutation ($sessionId: String!, $entityId: String!, $disposition: AmlHitDisposition!, $reason: String!) {
  disposeAmlHit(sessionId: $sessionId, entityId: $entityId, disposition: $disposition, reason: $reason) { id } }`;

/** Words of a disposition. */
const DISPOSITION_LABELS: Record<string, string> = { true_match: 'True match', false_positive: 'False positive' };

/** A list of values, or a dash. */
const listed = (values: string[] | undefined) => (values && values.length ? values.join(', ') : '—');

/** The reviewer's form for one hit: true match or false positive, with a reason. */
function dispositionForm(session: Case, hit: CaseAmlHit, index: number, onChange: () => Promise<void>): HTMLElement {
  const error = h('p', { class: 'error', role: 'alert', id: `aml-error-${index}` });
  const choice = h(
    'select',
    { id: `aml-disposition-${index}`, name: 'disposition' },
    h('option', { value: 'false_positive' }, 'False positive'),
    h('option', { value: 'true_match' }, 'True match'),
  );
  const reason = h('input', { id: `aml-reason-${index}`, name: 'reason', type: 'text', maxlength: '2000', autocomplete: 'off' });
  const form = h(
    'form',
    {
      class: 'aml-form',
      onsubmit: async (event) => {
        event.preventDefault();
        if (!reason.value.trim()) {
          error.textContent = 'Give a reason: it goes into the audit trail.';
          return;
        }
        try {
          await graphql(DISPOSE, { sessionId: session.id, entityId: hit.entityId, disposition: choice.value, reason: reason.value.trim() });
          announce(`Hit marked ${DISPOSITION_LABELS[choice.value]!.toLowerCase()}.`);
          await onChange();
        } catch (failure) {
          error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
        }
      },
    },
    h('div', { class: 'field' }, h('label', { for: `aml-disposition-${index}` }, 'This hit is'), choice),
    h('div', { class: 'field grow' }, h('label', { for: `aml-reason-${index}` }, 'Reason (kept in the audit trail)'), reason),
    h('button', { type: 'submit', class: 'secondary', id: `aml-record-${index}` }, hit.disposition ? 'Change' : 'Record'),
    error,
  );
  return form;
}

/**
 * AML hits with the listed entity (names, dates of birth, nationality, programmes, list and its
 * id) and the reviewer's disposition; reviewers and admins mark each hit true match or false
 * positive with a reason. A false positive is not raised again for the same person until the
 * entity's record or the person's data changes; a sanctions true match forbids approving.
 */
export function amlSection(session: Case, onChange: () => Promise<void> = async () => undefined): HTMLElement | null {
  const aml = session.nodeResults.find((node) => node.nodeType === 'aml_screening');
  if (!aml) return null;
  const hits = session.amlHits ?? [];
  const decides = me().operator.role !== 'viewer';
  return h(
    'section',
    { 'aria-labelledby': 'aml-heading' },
    h('h2', { id: 'aml-heading' }, 'AML screening'),
    h(
      'p',
      {},
      `Screened ${aml.details.subject?.full_name ?? 'the subject'} against ${((aml.details.checked_lists ?? []) as string[]).join(', ') || 'no list'}; score ${aml.details.score ?? 0}.`,
    ),
    hits.length === 0
      ? h('p', {}, 'No hit.')
      : h(
          'ol',
          { class: 'aml-hits', id: 'aml-hits' },
          ...hits.map((hit, index) =>
            h(
              'li',
              { class: 'aml-hit', 'data-entity': hit.entityId, 'data-disposition': hit.disposition?.disposition },
              h(
                'h3',
                {},
                hit.entity?.primaryName ?? hit.matchedName,
                h('span', { class: 'muted' }, ` · score ${hit.score} · ${hit.category.replace(/_/g, ' ')}`),
              ),
              hit.suppressed
                ? h('p', { class: 'muted' }, 'Not counted: a reviewer marked it false positive for this person before.')
                : null,
              hit.foundBy === 'monitoring' ? h('p', { class: 'muted' }, 'Found by ongoing monitoring after the decision.') : null,
              h(
                'dl',
                { class: 'facts' },
                h('dt', {}, 'Matched name'),
                h('dd', {}, hit.matchedName),
                h('dt', {}, 'Other names'),
                h('dd', {}, listed(hit.entity?.aliases)),
                h('dt', {}, 'Dates of birth'),
                h('dd', {}, listed(hit.entity?.datesOfBirth)),
                h('dt', {}, 'Nationality'),
                h('dd', {}, listed(hit.entity?.countries)),
                h('dt', {}, 'Programme'),
                h('dd', {}, listed(hit.entity?.programs)),
                h('dt', {}, 'Source'),
                h('dd', {}, `${hit.list} · ${hit.entity?.sourceId ?? hit.entityId.slice(hit.list.length + 1)}`),
              ),
              hit.disposition
                ? h(
                    'p',
                    { class: 'disposition', id: `aml-marked-${index}` },
                    h('strong', {}, DISPOSITION_LABELS[hit.disposition.disposition] ?? hit.disposition.disposition),
                    ` by ${hit.disposition.actorName ?? hit.disposition.actor}, ${when(hit.disposition.createdAt)} — ${hit.disposition.reason}`,
                    hit.disposition.entityChanged ? ' (the listing changed since: re-screens raise it again)' : '',
                  )
                : null,
              decides ? dispositionForm(session, hit, index, onChange) : null,
            ),
          ),
        ),
  );
}

/** One named fraud signal of a node's details (docs/fraud.md). */
interface FraudSignal {
  name: string;
  outcome: string;
  value: number | boolean;
  limit: number | null;
  meaning: string;
}

/** A code of the reason catalogue as the case page names it (the `reasonCodes` query). */
export interface CatalogueCode {
  code: string;
  category: string;
  reviewerText: string;
}

/** Names of the steps in the fraud section. */
const FRAUD_STEPS: Record<string, string> = {
  document_verification: 'Document',
  biometric_kyc: 'Selfie',
  phone_verification: 'Phone',
  proof_of_address: 'Proof of address',
};

/** Codes whose evidence the section details signal by signal (below), so the list does not repeat them. */
const DETAILED = new Set(['presentation_attack', 'document_recapture']);

/**
 * Every fraud signal of the case as a step's result or warning (replayed portrait, reused selfie,
 * duplicate face or document, capture integrity, tampering, …), in the catalogue's words, with the
 * sessions a duplicate links to. The catalogue decides what is a fraud signal (category `fraud`).
 */
function fraudList(session: Case, catalogue: ReadonlyMap<string, CatalogueCode>): HTMLElement | null {
  const seen = new Set<string>();
  const items: HTMLElement[] = [];
  for (const node of session.nodeResults) {
    const codes = [node.details.result_code as string | undefined, ...node.warnings.map((warning) => warning.code)];
    for (const code of codes) {
      const entry = code ? catalogue.get(code) : undefined;
      if (!entry || entry.category !== 'fraud' || DETAILED.has(entry.code) || seen.has(`${node.nodeType}:${entry.code}`)) continue;
      seen.add(`${node.nodeType}:${entry.code}`);
      const ids = Array.isArray(node.details[entry.code]?.session_ids) ? (node.details[entry.code].session_ids as string[]) : [];
      const links = ids.flatMap((id, index) => [
        index > 0 ? ', ' : '',
        h('a', { href: `#/case/${id}`, 'data-linked-session': id }, `case ${id.slice(0, 8)}`),
      ]);
      items.push(
        h(
          'li',
          { 'data-signal': entry.code },
          `${FRAUD_STEPS[node.nodeType] ?? node.nodeType.replace(/_/g, ' ')}: ${entry.reviewerText}`,
          ...(ids.length ? [' See ', ...links, '.'] : []),
        ),
      );
    }
  }
  return items.length ? h('ul', { id: 'fraud-list' }, ...items) : null;
}

/**
 * The fraud signals the checks found, in plain words: every fraud code of the catalogue a step
 * reported, the selfie's presentation-attack evidence and the document's re-capture evidence, each
 * signal that spoke with what it measured. Nothing when no step carries such a finding.
 */
export function fraudSection(session: Case, catalogue: ReadonlyMap<string, CatalogueCode>): HTMLElement | null {
  const list = fraudList(session, catalogue);
  const findings: [string, { outcome: string; signals: FraudSignal[] } | undefined, string][] = [
    [
      'Selfie',
      session.nodeResults.find((node) => node.nodeType === 'biometric_kyc')?.details.presentation_attack,
      'looks like a photo of a photo, a screen or a cut-out',
    ],
    [
      'Document',
      session.nodeResults.find((node) => node.nodeType === 'document_verification')?.details.recapture,
      'looks photographed from a screen or a printed copy',
    ],
  ];
  const shown = findings.filter(([, finding]) => finding);
  if (shown.length === 0 && !list) return null;
  const strength = (outcome: string) => (outcome === 'failed' ? 'strong evidence' : 'weak evidence');
  return h(
    'section',
    { 'aria-labelledby': 'fraud-heading', id: 'fraud-signals' },
    h('h2', { id: 'fraud-heading' }, 'Fraud signals'),
    list,
    ...shown.map(([step, finding, suspicion]) => {
      const spoke = finding!.signals.filter((signal) => signal.outcome !== 'passed' && signal.name !== 'camera_metadata');
      const metadata = finding!.signals.find((signal) => signal.name === 'camera_metadata');
      return h(
        'div',
        { 'data-finding': step.toLowerCase() },
        h(
          'p',
          {},
          finding!.outcome === 'passed'
            ? `${step}: no sign that it ${suspicion}.`
            : `${step}: it ${suspicion}${finding!.outcome === 'failed' ? ' (the step failed for it)' : ' (sent to review)'}.`,
        ),
        spoke.length
          ? h(
              'ul',
              {},
              ...spoke.map((signal) =>
                h(
                  'li',
                  { 'data-signal': signal.name },
                  `${signal.meaning} (${strength(signal.outcome)}: measured ${signal.value}, limit ${signal.limit})`,
                ),
              ),
            )
          : null,
        metadata && metadata.value === false
          ? h('p', { class: 'muted' }, 'The file carries no camera information (not counted: many genuine uploads have none).')
          : null,
      );
    }),
  );
}
