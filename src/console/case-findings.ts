/** What the checks found on a case: the evidence, the identity as read, each step's result and the AML hits. */
import { badge, h } from './dom.js';
import { faceEntryControl } from './lists.js';
import { linkedSessions } from './linked-sessions.js';
import { me } from './state.js';
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
  evidence: { id: string; kind: string; contentType: string; url: string }[];
  notes: { id: string; authorName: string; body: string; createdAt: number }[];
  claim: Claim | null;
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

/** Names of the evidence kinds as shown. */
const EVIDENCE_LABELS: Record<string, string> = {
  document_front: 'Document, front',
  document_back: 'Document, back',
  selfie: 'Selfie',
  proof_of_address: 'Proof of address',
};

/**
 * The document front and back beside the selfie, with the similarity the face step measured.
 * Each file comes through its short-lived signed URL, and the server audits every opening; the
 * latest submission of each kind is shown (earlier ones were retakes).
 */
export function evidenceSection(session: Case): HTMLElement {
  const latest = new Map(session.evidence.map((item) => [item.kind, item]));
  const face = session.nodeResults.find((node) => node.nodeType === 'biometric_kyc');
  const similarity = typeof face?.details.similarity === 'number' ? `${Math.round(face.details.similarity * 100)} %` : null;
  return h(
    'section',
    { 'aria-labelledby': 'evidence-heading' },
    h('h2', { id: 'evidence-heading' }, 'Evidence'),
    latest.size === 0
      ? h('p', {}, 'Nothing kept: the files were not images, or the retention period is 0 or over.')
      : h(
          'div',
          { class: 'evidence', id: 'evidence' },
          ...[...latest.values()].map((item) => {
            const label = EVIDENCE_LABELS[item.kind] ?? item.kind;
            return h(
              'figure',
              { 'data-kind': item.kind },
              item.contentType.startsWith('image/')
                ? h('img', { src: item.url, alt: `${label} as submitted` })
                : h('a', { href: item.url, target: '_blank', rel: 'noopener' }, `Open the ${label.toLowerCase()} (PDF)`),
              h('figcaption', {}, item.kind === 'selfie' && similarity ? `${label} · similarity ${similarity}` : label),
            );
          }),
        ),
    latest.has('selfie') && me().operator.role !== 'viewer' ? faceEntryControl(session.id) : null,
  );
}

/** Every node's result, warnings and the checks it ran. */
export function checksSection(session: Case): HTMLElement {
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
            h('td', {}, node.warnings.map((warning) => warning.message).join(' ') || '—', linkedSessions(node.details)),
          ),
        ),
      ),
    ),
  );
}

/** AML hits with the listed entity and its list. */
export function amlSection(session: Case): HTMLElement | null {
  const aml = session.nodeResults.find((node) => node.nodeType === 'aml_screening');
  if (!aml) return null;
  const hits = (aml.details.hits ?? []) as { list: string; category?: string; matched_name: string; score: number; entry_id: string }[];
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
          'table',
          { tabindex: '0', id: 'aml-hits' },
          h('caption', {}, 'Hits'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Listed name'),
              h('th', { scope: 'col' }, 'List'),
              h('th', { scope: 'col' }, 'Category'),
              h('th', { scope: 'col' }, 'Score'),
              h('th', { scope: 'col' }, 'Entry'),
            ),
          ),
          h(
            'tbody',
            {},
            ...hits.map((hit) =>
              h(
                'tr',
                {},
                h('td', {}, hit.matched_name),
                h('td', {}, hit.list),
                h('td', {}, hit.category ?? '—'),
                h('td', {}, String(hit.score)),
                h('td', {}, hit.entry_id),
              ),
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

/**
 * The fraud signals the checks found, in plain words: the selfie's presentation-attack evidence
 * and the document's re-capture evidence, each signal that spoke with what it measured. Nothing
 * when no step carries such a finding (sandbox results, older sessions).
 */
export function fraudSection(session: Case): HTMLElement | null {
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
  if (shown.length === 0) return null;
  const strength = (outcome: string) => (outcome === 'failed' ? 'strong evidence' : 'weak evidence');
  return h(
    'section',
    { 'aria-labelledby': 'fraud-heading', id: 'fraud-signals' },
    h('h2', { id: 'fraud-heading' }, 'Fraud signals'),
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
