/**
 * The case report an auditor is handed (issue 25, "Proof"): one PDF with the session, its
 * decision's reasons, each check, the kept images, the notes, the audit timeline and who viewed
 * the evidence, drawn with pdfkit (a maintained PDF writer that streams its output).
 */
import PDFDocument from 'pdfkit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { EvidenceSchema, EvidenceViewSchema } from '../../entities/evidence.entity.js';
import { SessionStatusChangeSchema, type SessionStatusChange } from '../../entities/session.entity.js';
import { WorkflowSchema } from '../../entities/workflow.entity.js';
import type { OperatorPrincipal } from '../auth/context.js';
import { listNotes } from '../sessions/note.service.js';
import type { Services } from '../services.js';
import { readSession } from '../sessions/read.js';
import { openImagesForReport, type OpenedImage } from './evidence.service.js';
import { REPORT_FONT_FILES, textRuns } from './report-fonts.js';
import { storedDetailsOf } from '../sessions/stored-node-details.js';

/** Width and height a kept image is scaled into on the page, in PDF points. */
const IMAGE_BOX_POINTS: [number, number] = [240, 170];
/** Longest detail value printed in full, in characters; longer ones are cut with an ellipsis. */
const DETAIL_VALUE_MAX_LENGTH = 120;

interface ViewRow {
  viewed_at: Date;
  operator_name: string;
  kind: string | null;
  client_address: string | null;
}

/** Everything a report shows, read before the first byte is written (so an error is still a clean problem answer). */
export interface CaseReportData {
  session: Awaited<ReturnType<typeof readSession>>['session'];
  nodeResults: Awaited<ReturnType<typeof readSession>>['nodeResults'];
  workflowName: string | null;
  timeline: SessionStatusChange[];
  notes: Awaited<ReturnType<typeof listNotes>>;
  images: OpenedImage[];
  views: ViewRow[];
  generatedBy: string;
  generatedAt: Date;
}

/** Reads a case for its report, in the operator's tenant and environment (404 otherwise); the images it opens are audited as views. */
export async function readCaseReport(
  em: EntityManager,
  services: Services,
  operator: OperatorPrincipal,
  sessionId: string,
): Promise<CaseReportData> {
  const { session, nodeResults } = await readSession(em, services, operator, sessionId);
  const workflow = await em.findOne(WorkflowSchema, session.workflowId, { fields: ['name'] });
  const timeline = await em.find(SessionStatusChangeSchema, { sessionId: session.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const notes = await listNotes(em, [session.id]);
  const images = await openImagesForReport(em, services.secrets, operator, session.id);
  const views = await readViews(em, session.id, operator.tenantId);
  return {
    session,
    nodeResults,
    workflowName: workflow?.name ?? null,
    timeline,
    notes,
    images,
    views,
    generatedBy: operator.operatorName,
    generatedAt: new Date(),
  };
}

/**
 * Who viewed a session's evidence, oldest first, with the kind of each file while it is still
 * kept (the trail outlives the evidence it names). Both reads skip the identity map.
 */
async function readViews(em: EntityManager, sessionId: string, tenantId: string): Promise<ViewRow[]> {
  const views = await em.find(
    EvidenceViewSchema,
    { sessionId, tenantId },
    {
      fields: ['viewedAt', 'operatorName', 'evidenceId', 'clientAddress'],
      orderBy: { viewedAt: 'asc', id: 'asc' },
      disableIdentityMap: true,
    },
  );
  const evidenceIds = [...new Set(views.map((view) => view.evidenceId))];
  const kept =
    evidenceIds.length === 0
      ? []
      : await em.find(EvidenceSchema, { id: { $in: evidenceIds } }, { fields: ['kind'], disableIdentityMap: true });
  const kinds = new Map(kept.map((evidence) => [evidence.id, evidence.kind]));
  return views.map((view) => ({
    viewed_at: view.viewedAt,
    operator_name: view.operatorName,
    kind: kinds.get(view.evidenceId) ?? null,
    client_address: view.clientAddress ?? null,
  }));
}

/** A time as an auditor reads it: ISO 8601, UTC, to the second. */
function when(value: Date | string | null): string {
  return value ? `${new Date(value).toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/** A detail value on one line. */
function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > DETAIL_VALUE_MAX_LENGTH ? `${text.slice(0, DETAIL_VALUE_MAX_LENGTH - 1)}…` : text;
}

/** The person as the case knows them: names read from the document and typed, date of birth and country. */
function personLines(data: CaseReportData): [string, string][] {
  const lines: [string, string][] = [];
  const join = (...parts: unknown[]) => parts.filter((part) => typeof part === 'string' && part.trim()).join(' ');
  const resultOf = (nodeType: string) => data.nodeResults.find((result) => result.nodeType === nodeType);
  const document = storedDetailsOf(resultOf('document_verification'), 'document_verification');
  const extracted: Partial<NonNullable<typeof document.extracted>> = document.extracted ?? {};
  const documentName = join(extracted.first_name, extracted.last_name);
  const printedName = join(extracted.first_name_viz, extracted.last_name_viz);
  if (documentName) lines.push(['Name on the document', documentName]);
  if (printedName && printedName !== documentName) lines.push(['Name as printed', printedName]);
  const expected = data.session.expectedDetails;
  const typed = join(expected?.first_name, expected?.last_name);
  if (typed) lines.push(['Name given', typed]);
  const screened = storedDetailsOf(resultOf('aml_screening'), 'aml_screening').subject?.full_name;
  if (typeof screened === 'string' && screened && screened !== documentName && screened !== typed) lines.push(['Name screened', screened]);
  const birth = extracted.date_of_birth ?? expected?.date_of_birth;
  if (typeof birth === 'string') lines.push(['Date of birth', birth]);
  const country = document.issuing_country ?? extracted.nationality ?? expected?.country;
  if (typeof country === 'string') lines.push(['Country', country]);
  return lines;
}

/** Writes the report as a PDF stream; the caller pipes it to the answer. */
export function caseReportPdf(data: CaseReportData): PDFKit.PDFDocument {
  const { session } = data;
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `Case report ${session.id}`, Author: data.generatedBy, Subject: 'Identity verification case report' },
  });
  doc.registerFont('text', REPORT_FONT_FILES.regular);
  doc.registerFont('bold', REPORT_FONT_FILES.bold);
  doc.registerFont('cjk', REPORT_FONT_FILES.cjk);
  /**
   * Writes text in runs, each with the font that has its glyphs (names come in any script), and
   * ends the line unless `continued`.
   */
  const say = (text: string, options: { bold?: boolean; indent?: number; continued?: boolean } = {}) => {
    const runs = textRuns(text);
    if (runs.length === 0) runs.push({ text: '', face: 'text', rtl: false });
    runs.forEach((run, index) => {
      const lastRun = index === runs.length - 1;
      doc.font(run.face === 'cjk' ? 'cjk' : options.bold ? 'bold' : 'text').text(run.text, {
        ...(index === 0 && options.indent ? { indent: options.indent } : {}),
        continued: !lastRun || !!options.continued,
      });
    });
  };
  const heading = (text: string) => {
    doc.moveDown(0.8).fontSize(13).fillColor('#111');
    say(text, { bold: true });
    doc.moveDown(0.3).fontSize(10).fillColor('#222');
  };
  const line = (label: string, value: string) => {
    say(`${label}: `, { bold: true, continued: true });
    say(value);
  };

  doc.fontSize(18);
  say('Case report', { bold: true });
  doc.fontSize(9).fillColor('#555');
  say(`Generated ${when(data.generatedAt)} by ${data.generatedBy}`);
  doc.fontSize(10).fillColor('#222');

  const person = personLines(data);
  if (person.length > 0) {
    heading('Person');
    for (const [label, value] of person) line(label, value);
  }

  heading('Session');
  line('Session id', session.id);
  line('Status', session.status);
  line('Environment', session.environment);
  line('Workflow', data.workflowName ? `${data.workflowName} (${session.workflowId})` : session.workflowId);
  line('Vendor data', session.vendorData);
  line('Created', when(session.createdAt));
  line('Decided', when(session.decidedAt));
  if (session.complianceLevel) line('Compliance level', session.complianceLevel);

  heading('Reasons');
  if (session.reasons.length === 0) say('No reasons recorded.');
  for (const reason of session.reasons)
    say(
      `• ${reason.reviewerText ?? reason.message} (${reason.code}${reason.cause ? `: ${reason.cause}` : ''}${reason.nodeType ? `, ${reason.nodeType}` : ''})`,
    );

  heading('Checks');
  for (const result of data.nodeResults) {
    say(`${result.nodeType}: ${result.status}${result.required ? ' (required)' : ' (optional)'}`, { bold: true });
    say(`Provider ${result.provider}; submissions ${result.attempts}; updated ${when(result.updatedAt)}`, { indent: 12 });
    for (const warning of result.warnings) say(`Warning: ${warning.code}${warning.message ? ` — ${warning.message}` : ''}`, { indent: 12 });
    for (const [key, value] of Object.entries(result.details))
      if (value !== null && value !== undefined && typeof value !== 'object') say(`${key}: ${shortValue(value)}`, { indent: 12 });
  }

  heading('Evidence');
  if (data.images.length === 0) say('No images are kept for this session (retention elapsed, erased, or none submitted).');
  for (const image of data.images) {
    if (doc.y + IMAGE_BOX_POINTS[1] + 30 > doc.page.height - doc.page.margins.bottom) doc.addPage();
    say(`${image.nodeType} / ${image.kind}, submitted ${when(image.createdAt)}`);
    try {
      doc.image(image.bytes, { fit: IMAGE_BOX_POINTS });
      doc.y += 4;
    } catch {
      say('(this image could not be drawn)', { indent: 12 });
    }
  }

  heading('Timeline');
  for (const change of data.timeline)
    say(
      `${when(change.createdAt)}  ${change.fromStatus ?? 'created'} → ${change.toStatus}  by ${change.actorName ?? change.actor}` +
        `${change.clientAddress ? ` from ${change.clientAddress}` : ''}${change.reason ? `: ${change.reason}` : ''}`,
    );

  heading('Notes');
  if (data.notes.length === 0) say('No notes.');
  for (const note of data.notes) say(`${when(note.createdAt)}  ${note.authorName}: ${note.body}`);

  heading('Evidence views');
  if (data.views.length === 0) say('Nobody has viewed the evidence.');
  for (const view of data.views)
    say(
      `${when(view.viewed_at)}  ${view.operator_name} viewed ${view.kind ?? 'a file'}${view.client_address ? ` from ${view.client_address}` : ''}`,
    );

  doc.end();
  return doc;
}
