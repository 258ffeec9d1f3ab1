/**
 * What the console hands to an auditor (issue 25, "Proof"): the cases as CSV (filtered as the
 * queue on screen), the audit log as CSV (filtered as the audit page), and one case as a PDF report.
 * The CSVs are streamed a page of rows at a time, never built in memory; each export is itself
 * written to the audit log before its first byte leaves. Cookie and CSRF header as every console request.
 */
import { REFUSALS, requireAdmin, requireSignedIn } from '../auth/authorization.js';
import { Readable } from 'node:stream';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { stringify } from 'csv-stringify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OperatorPrincipal } from '../auth/context.js';
import { SESSION_STATUSES, type SessionStatus } from '../domain/types.js';
import { validationError, type FieldError } from '../shared/errors.js';
import { recordOperatorAction, type OperatorAction } from '../operators/operator-audit.js';
import { auditLogRows, checkAuditLogFilter, type AuditLogFilter } from '../operators/audit-log.service.js';
import { encodeKeysetCursor } from '../shared/pagination.js';
import type { Services } from '../services.js';
import { listSessions, SESSIONS_PAGE_MAX, type SessionFilter } from '../sessions/read.js';
import { CONSOLE_API_PREFIX, operatorFromCookie } from './console-auth.js';

/** The columns of the cases CSV, in order. */
export const SESSION_CSV_COLUMNS = [
  'session_id',
  'status',
  'workflow_id',
  'vendor_data',
  'created_at',
  'updated_at',
  'decided_at',
  'expires_at',
  'compliance_level',
  'reason_codes',
] as const;
/** The columns of the audit log CSV, in order. */
export const AUDIT_LOG_CSV_COLUMNS = [
  'at',
  'actor_name',
  'actor_operator_id',
  'action',
  'target_type',
  'target_id',
  'environment',
  'client_address',
  'details',
] as const;

type Query = Record<string, string | string[] | undefined>;

/** A query parameter given once; a repeated one is refused. */
function single(query: Query, name: string, errors: FieldError[]): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    errors.push({ field: name, code: 'invalid', message: `${name} is given once` });
    return undefined;
  }
  return value === '' ? undefined : value;
}

/** A time parameter: Unix seconds or an ISO 8601 date or date-time. */
function instant(query: Query, name: string, errors: FieldError[]): Date | undefined {
  const raw = single(query, name, errors);
  if (raw === undefined) return undefined;
  const date = /^\d{1,12}$/.test(raw) ? new Date(Number(raw) * 1000) : new Date(raw);
  if (Number.isNaN(date.getTime()) || !/^\d/.test(raw)) {
    errors.push({ field: name, code: 'invalid', message: `${name} is Unix seconds or an ISO 8601 date` });
    return undefined;
  }
  return date;
}

/** The cases filter of the queue page as query parameters: `status` (repeatable), `workflow_id`, `vendor_data`, `created_after`, `created_before`. */
export function sessionFilterOfQuery(query: Query): SessionFilter {
  const errors: FieldError[] = [];
  const statuses = ([] as string[]).concat(query.status ?? []).filter((status) => status !== '');
  for (const status of statuses)
    if (!SESSION_STATUSES.includes(status as SessionStatus))
      errors.push({ field: 'status', code: 'invalid', message: `status is one of ${SESSION_STATUSES.join(', ')}` });
  const filter: SessionFilter = {
    statuses: statuses.length ? (statuses as SessionStatus[]) : undefined,
    workflowId: single(query, 'workflow_id', errors),
    vendorData: single(query, 'vendor_data', errors),
    createdAfter: instant(query, 'created_after', errors),
    createdBefore: instant(query, 'created_before', errors),
  };
  if (errors.length) throw validationError(errors);
  return filter;
}

/** The audit page's filter as query parameters: `actor`, `action`, `from`, `to`. */
export function auditLogFilterOfQuery(query: Query): AuditLogFilter {
  const errors: FieldError[] = [];
  const filter: AuditLogFilter = {
    actor: single(query, 'actor', errors) ?? null,
    action: single(query, 'action', errors) ?? null,
    from: instant(query, 'from', errors) ?? null,
    to: instant(query, 'to', errors) ?? null,
  };
  if (errors.length) throw validationError(errors);
  checkAuditLogFilter(filter);
  return filter;
}

/** Every session matching the filter, newest first, read a page at a time. */
async function* sessionCsvRecords(
  em: EntityManager,
  operator: OperatorPrincipal,
  filter: SessionFilter,
): AsyncGenerator<Record<string, string>> {
  let after: string | undefined;
  for (;;) {
    const page = await listSessions(em, operator, filter, { first: SESSIONS_PAGE_MAX, after });
    for (const session of page.sessions)
      yield {
        session_id: session.id,
        status: session.status,
        workflow_id: session.workflow.id,
        vendor_data: session.vendorData,
        created_at: session.createdAt.toISOString(),
        updated_at: session.updatedAt.toISOString(),
        decided_at: session.decidedAt?.toISOString() ?? '',
        expires_at: session.expiresAt.toISOString(),
        compliance_level: session.complianceLevel ?? '',
        reason_codes: session.reasons.map((reason) => reason.cause ?? reason.code).join(';'),
      };
    const last = page.sessions.at(-1);
    if (!page.hasNextPage || !last) return;
    after = encodeKeysetCursor(last);
    em.clear();
  }
}

/** The CSV stream of records: a header line, RFC 4180 quoting, and cells that a spreadsheet would run as formulas escaped. */
function csvStream(records: AsyncIterable<Record<string, string>>, columns: readonly string[]): NodeJS.ReadableStream {
  return Readable.from(records).pipe(
    stringify({ header: true, columns: [...columns], escape_formulas: true, record_delimiter: 'windows' }),
  );
}

/** A download's file name: what it is, the environment and the UTC day. */
function fileName(what: string, operator: OperatorPrincipal, extension: string): string {
  return `${what}-${operator.environment}-${new Date().toISOString().slice(0, 10)}.${extension}`;
}

/** Headers of every export: a download, never cached, never sniffed. */
function asDownload(reply: FastifyReply, contentType: string, name: string): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', `attachment; filename="${name}"`)
    .type(contentType);
}

/** Writes a CSV export to the audit log, with the filter it was asked with, before its first byte leaves. */
function auditCsvExport(
  em: EntityManager,
  operator: OperatorPrincipal,
  action: OperatorAction,
  file: string,
  filter: Query,
): Promise<void> {
  return recordOperatorAction(em, operator, {
    action,
    targetType: 'export',
    targetId: file,
    environment: operator.environment,
    details: { filter },
  });
}

/** Registers the export routes under /console/api (cookie and CSRF header, as every console call). */
export function registerConsoleExports(app: FastifyInstance, orm: MikroORM, services: Services): void {
  const signedInOperator = async (request: FastifyRequest, em: EntityManager) =>
    requireSignedIn(await operatorFromCookie(em, request.headers));

  app.get<{ Querystring: Query }>(`${CONSOLE_API_PREFIX}/exports/sessions.csv`, async (request, reply) => {
    const em = orm.em.fork();
    const operator = await signedInOperator(request, em);
    const filter = sessionFilterOfQuery(request.query);
    await auditCsvExport(em, operator, 'export.sessions_csv', 'sessions.csv', request.query);
    return asDownload(reply, 'text/csv; charset=utf-8', fileName('sessions', operator, 'csv')).send(
      csvStream(sessionCsvRecords(em, operator, filter), SESSION_CSV_COLUMNS),
    );
  });

  app.get<{ Querystring: Query }>(`${CONSOLE_API_PREFIX}/exports/audit-log.csv`, async (request, reply) => {
    const em = orm.em.fork();
    const reader = requireAdmin(await signedInOperator(request, em), REFUSALS.auditLog);
    const filter = auditLogFilterOfQuery(request.query);
    await auditCsvExport(em, reader, 'export.audit_log_csv', 'audit-log.csv', request.query);
    async function* records() {
      for await (const entry of auditLogRows(em, reader, filter))
        yield {
          at: entry.at.toISOString(),
          actor_name: entry.actorName,
          actor_operator_id: entry.actorOperatorId ?? '',
          action: entry.action,
          target_type: entry.targetType,
          target_id: entry.targetId,
          environment: entry.environment ?? '',
          client_address: entry.clientAddress ?? '',
          details: JSON.stringify(entry.details),
        };
    }
    return asDownload(reply, 'text/csv; charset=utf-8', fileName('audit-log', reader, 'csv')).send(
      csvStream(records(), AUDIT_LOG_CSV_COLUMNS),
    );
  });

  app.get<{ Params: { id: string } }>(`${CONSOLE_API_PREFIX}/sessions/:id/report.pdf`, async (request, reply) => {
    const em = orm.em.fork();
    const operator = await signedInOperator(request, em);
    // Loaded on the first report: pdfkit and the report's fonts cost every start (and every API test file) a quarter of a second otherwise.
    const { caseReportPdf, readCaseReport } = await import('../evidence/case-report.js');
    const data = await readCaseReport(em, services, operator, request.params.id);
    await recordOperatorAction(em, operator, {
      action: 'export.case_report',
      targetType: 'session',
      targetId: data.session.id,
      environment: operator.environment,
      details: { images: data.images.length },
    });
    return asDownload(reply, 'application/pdf', `case-${data.session.id}.pdf`).send(caseReportPdf(data));
  });
}
