/**
 * Replay (issue 27): runs a workflow revision, usually a draft, over past decided sessions of the
 * tenant and environment, from their stored node results (no engine runs again), and reports the
 * verdicts it would change and why. Read-only by construction: the sessions are read in
 * `READ ONLY` transactions (PostgreSQL refuses any write in them) and the verdict is the pure
 * `decideWithRules`; the only row written is the replay's own (progress and report).
 * Small selections run at once; large ones are queued (pg-boss `workflow-replay`, src/jobs/jobs.ts)
 * and report progress as they go.
 *
 * Raw SQL: (b) `set transaction read only` for the dry run, a lease claimed by `update …
 * returning` with a time condition, and selection filters built once as SQL for the count and the
 * keyset pages.
 */
import { randomUUID } from 'node:crypto';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { WorkflowReplaySchema, WorkflowSchema, type WorkflowDefinition } from '../../entities/workflow.entity.js';
import type { TenantScope } from '../auth/context.js';
import { openPersonalData } from '../auth/personal-data.js';
import type { ListHit, NodeResult, NodeType } from '../domain/types.js';
import { decideWithRules, ruleFacts, type RuledVerdict } from '../domain/workflow-rules.js';
import { ApiError, notFound } from '../shared/errors.js';
import { parseOrThrow } from '../shared/validation.js';
import { revisionDefinition } from './revisions.js';
import { getWorkflow } from './workflow.service.js';
import { storedDetailsOf } from '../sessions/stored-node-details.js';

/** Sessions a replay reads per read-only transaction (and between two progress updates). */
export const REPLAY_BATCH = 200;
/** Selections up to this many sessions are replayed within the request; larger ones are queued. */
export const REPLAY_INLINE_LIMIT = 500;
/** Most sessions one replay may read. */
export const REPLAY_MAX_SESSIONS = 100_000;
/**
 * How long a running replay's worker may go without a heartbeat (set on claim and after every
 * batch) before the sweep takes the replay over as abandoned (its worker was killed or restarted).
 * A batch takes well under a second; the margin covers a loaded machine.
 */
export const REPLAY_LEASE_SECONDS = 120;
/** Changed sessions listed in a report (the counts cover all). */
export const REPLAY_LISTED_CHANGES = 500;

/** Which sessions a replay reads. */
export const ReplaySelectionSchema = z
  .object({
    revision: z.number().int().min(1),
    last: z.number().int().min(1).max(REPLAY_MAX_SESSIONS).optional(),
    from: z.coerce.number().int().min(0).optional(),
    to: z.coerce.number().int().min(0).optional(),
    /** Run on the queue whatever the size (the answer comes back `queued`; read it again for progress). */
    background: z.boolean().optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    const range = value.from !== undefined || value.to !== undefined;
    if (value.last === undefined && !range) ctx.addIssue({ code: 'custom', path: ['last'], message: 'give last, or a from/to date range' });
    if (value.last !== undefined && range) ctx.addIssue({ code: 'custom', path: ['last'], message: 'give last or a date range, not both' });
    if (value.from !== undefined && value.to !== undefined && value.to <= value.from)
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
  });
/** A replay's selection as given. */
export type ReplaySelection = z.input<typeof ReplaySelectionSchema>;

/** One session whose verdict would change. */
export interface ReplayChange {
  sessionId: string;
  before: string;
  after: string;
  reason: string;
  matchedRules: string[];
}

/** What a replay found. */
export interface ReplayReport {
  changed: number;
  byReason: Record<string, number>;
  changes: ReplayChange[];
}

/** A replay as stored. */
export interface ReplayRecord {
  id: string;
  workflowId: string;
  revision: number;
  status: 'queued' | 'running' | 'done' | 'failed';
  total: number;
  done: number;
  report: ReplayReport;
  error: string | null;
  createdAt: Date;
}

interface ReplayRow {
  id: string;
  tenant_id: string;
  environment: string;
  workflow_id: string;
  revision: number;
  selection: z.output<typeof ReplaySelectionSchema> | string;
  status: ReplayRecord['status'];
  total: number;
  done: number;
  report: ReplayReport | string | null;
  error: string | null;
  created_at: Date | string;
}

const EMPTY_REPORT: ReplayReport = { changed: 0, byReason: {}, changes: [] };

function json<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

function recordOf(row: ReplayRow): ReplayRecord {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    revision: Number(row.revision),
    status: row.status,
    total: Number(row.total),
    done: Number(row.done),
    report: row.report === null ? EMPTY_REPORT : json<ReplayReport>(row.report),
    error: row.error,
    createdAt: new Date(row.created_at),
  };
}

/** The WHERE clause and parameters of a selection (decided sessions of one workflow, tenant and environment). */
function selectionWhere(
  row: Pick<ReplayRow, 'tenant_id' | 'environment' | 'workflow_id'>,
  selection: z.output<typeof ReplaySelectionSchema>,
) {
  const clauses = [`tenant_id = ?`, `environment = ?`, `workflow_id = ?`, `status in ('approved', 'declined', 'in_review')`];
  const params: unknown[] = [row.tenant_id, row.environment, row.workflow_id];
  if (selection.from !== undefined) {
    clauses.push(`created_at >= ?`);
    params.push(new Date(selection.from * 1000));
  }
  if (selection.to !== undefined) {
    clauses.push(`created_at < ?`);
    params.push(new Date(selection.to * 1000));
  }
  return { sql: clauses.join(' and '), params };
}

/** Runs `work` in a transaction PostgreSQL refuses to write in. */
async function readOnly<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tx) => {
    await tx.execute('set transaction read only');
    return work(tx);
  });
}

/**
 * Starts a replay of one revision of a custom or built-in workflow visible to the scope over its
 * past decided sessions: replayed now when the selection is small, else queued (`queued`, then
 * `running` with `done` counting up, then `done`).
 */
export async function startReplay(
  em: EntityManager,
  scope: TenantScope,
  workflowId: string,
  input: ReplaySelection,
  runLater: (replayId: string) => void,
): Promise<ReplayRecord> {
  const selection = parseOrThrow(ReplaySelectionSchema, input);
  const workflow = await getWorkflow(em, scope, workflowId);
  await revisionDefinition(em, workflow.id, selection.revision);
  const row = { tenant_id: scope.tenantId, environment: scope.environment, workflow_id: workflow.id };
  const where = selectionWhere(row, selection);
  const [{ count }] = await em.execute<{ count: string }[]>(`select count(*) as count from session where ${where.sql}`, where.params);
  const total = Math.min(Number(count), selection.last ?? REPLAY_MAX_SESSIONS);
  const id = randomUUID();
  await em.insert(WorkflowReplaySchema, {
    id,
    tenantId: scope.tenantId,
    environment: scope.environment,
    workflowId: workflow.id,
    revision: selection.revision,
    selection: { ...selection },
    status: 'queued',
    total,
    done: 0,
  });
  if (total <= REPLAY_INLINE_LIMIT && !selection.background) await runReplay(em, id);
  else runLater(id);
  return getReplay(em, scope, id);
}

/** One replay of the scope, or 404 (another tenant's or environment's is invisible). */
export async function getReplay(em: EntityManager, scope: TenantScope, id: string): Promise<ReplayRecord> {
  if (!z.uuid().safeParse(id).success) throw notFound('Replay');
  const [row] = await em.execute<ReplayRow[]>(`select * from workflow_replay where id = ? and tenant_id = ? and environment = ?`, [
    id,
    scope.tenantId,
    scope.environment,
  ]);
  if (!row) throw notFound('Replay');
  return recordOf(row);
}

interface StoredSession {
  id: string;
  status: string;
  environment: string;
  metadata: Record<string, unknown> | string | null;
  reasons: { code: string; listId?: string; entryId?: string; nodeType?: NodeType; message?: string }[] | string | null;
  aml_score: number | null;
  workflow_revision: number | null;
  decided_at: Date | string | null;
  created_at: Date | string;
}

/** The list hits a session was decided with, as its stored reasons name them. */
function storedListHits(reasons: Exclude<StoredSession['reasons'], string | null>): ListHit[] {
  return reasons
    .filter((reason) => reason.code === 'list_auto_decline' || reason.code === 'list_review')
    .map((reason) => ({
      listId: reason.listId ?? '',
      listName: '',
      entryId: reason.entryId ?? '',
      policy: reason.code === 'list_auto_decline' ? ('auto_decline' as const) : ('review' as const),
      nodeType: reason.nodeType ?? 'document_verification',
    }));
}

/** The verdict of a definition over one stored session: pure, from what the session stored. */
export function replayVerdict(
  definition: WorkflowDefinition,
  session: StoredSession,
  nodeResults: Partial<Record<NodeType, NodeResult>>,
): RuledVerdict {
  const reasons = json(session.reasons ?? []);
  const listHits = storedListHits(reasons);
  const scored = storedDetailsOf(nodeResults.aml_screening, 'aml_screening').score;
  const amlScore = typeof scored === 'number' ? Math.min(100, Math.max(0, scored)) : session.aml_score;
  const facts = ruleFacts({
    environment: session.environment,
    metadata: json(session.metadata),
    nodeTypes: definition.nodes.map((node) => node.type),
    nodeResults,
    documentDetails: storedDetailsOf(nodeResults.document_verification, 'document_verification'),
    amlDetails: storedDetailsOf(nodeResults.aml_screening, 'aml_screening'),
    listHits,
    sessionWarnings: [],
    amlScore,
    today: new Date(session.decided_at ?? session.created_at),
  });
  return decideWithRules({
    workflow: { nodes: definition.nodes, complianceLevel: definition.complianceLevel, amlScoreThreshold: definition.amlScoreThreshold },
    nodeResults,
    listHits,
    amlScore,
    sessionWarnings: [],
    rules: definition.rules,
    facts,
  });
}

function outcome(verdict: RuledVerdict): string {
  return verdict.status ?? 'pending';
}

/**
 * Runs a queued replay to its end: claims it (so two workers never run the same one), then reads
 * the selected sessions batch by batch in read-only transactions, compares the verdict of the
 * revision each ran with the replayed revision's, and records progress after each batch.
 */
export async function runReplay(em: EntityManager, replayId: string): Promise<void> {
  // Claims a queued replay, or one whose worker stopped sending heartbeats; it starts again from the first session.
  const [row] = await em.execute<ReplayRow[]>(
    `update workflow_replay set status = 'running', heartbeat_at = now(), done = 0, report = null
      where id = ? and (status = 'queued' or (status = 'running' and coalesce(heartbeat_at, created_at) < now() - make_interval(secs => ?)))
      returning *`,
    [replayId, REPLAY_LEASE_SECONDS],
  );
  if (!row) return;
  try {
    const selection = json(row.selection);
    const target = await revisionDefinition(em, row.workflow_id, Number(row.revision));
    const definitions = new Map<number, WorkflowDefinition>();
    const published = await em.findOne(
      WorkflowSchema,
      { id: row.workflow_id },
      { fields: ['publishedRevision'], disableIdentityMap: true },
    );
    const report: ReplayReport = { changed: 0, byReason: {}, changes: [] };
    const where = selectionWhere(row, selection);
    let done = 0;
    let cursor: { createdAt: Date; id: string } | null = null;
    const limit = Math.min(Number(row.total), selection.last ?? REPLAY_MAX_SESSIONS);
    while (done < limit) {
      const size = Math.min(REPLAY_BATCH, limit - done);
      const page: { sessions: StoredSession[]; results: Map<string, Partial<Record<NodeType, NodeResult>>> } = await readOnly(
        em,
        async (tx) => {
          const after: { sql: string; params: unknown[] } = cursor
            ? { sql: ` and (created_at, id) < (?, ?)`, params: [cursor.createdAt, cursor.id] }
            : { sql: '', params: [] };
          const sessions = await tx.execute<StoredSession[]>(
            `select id, status, environment, metadata, reasons, aml_score, workflow_revision, decided_at, created_at
             from session where ${where.sql}${after.sql} order by created_at desc, id desc limit ?`,
            [...where.params, ...after.params, size],
          );
          const results = new Map<string, Partial<Record<NodeType, NodeResult>>>();
          if (sessions.length > 0) {
            const rows = await tx.execute<
              (NodeResult & {
                session_id: string;
                node_type: NodeType;
                warnings: NodeResult['warnings'] | string;
                details: NodeResult['details'] | string;
              })[]
            >(
              `select session_id, node_type, status, required, provider, warnings, details from session_node_result where session_id in (${sessions
                .map(() => '?')
                .join(', ')})`,
              sessions.map((session) => session.id),
            );
            for (const result of rows) {
              const bySession = results.get(result.session_id) ?? {};
              bySession[result.node_type] = {
                status: result.status,
                required: result.required,
                provider: result.provider,
                warnings: json(result.warnings),
                // Opened in memory: the replay reads, and writes nothing (src/auth/personal-data.ts).
                details: openPersonalData(tx as EntityManager, result.details),
              };
              results.set(result.session_id, bySession);
            }
          }
          for (const revision of new Set(
            sessions.map((session) => Number(session.workflow_revision ?? published?.publishedRevision ?? 1)),
          )) {
            if (!definitions.has(revision)) definitions.set(revision, await revisionDefinition(tx, row.workflow_id, revision));
          }
          return { sessions, results };
        },
      );
      if (page.sessions.length === 0) break;
      for (const session of page.sessions) {
        const results = page.results.get(session.id) ?? {};
        const own = definitions.get(Number(session.workflow_revision ?? published?.publishedRevision ?? 1))!;
        const before = replayVerdict(own, session, results);
        const after = replayVerdict(target, session, results);
        if (outcome(before) === outcome(after)) continue;
        const reason = after.reasons[0]?.cause ?? outcome(after);
        report.changed += 1;
        report.byReason[reason] = (report.byReason[reason] ?? 0) + 1;
        if (report.changes.length < REPLAY_LISTED_CHANGES)
          report.changes.push({
            sessionId: session.id,
            before: outcome(before),
            after: outcome(after),
            reason,
            matchedRules: after.matchedRules,
          });
      }
      done += page.sessions.length;
      const last = page.sessions[page.sessions.length - 1]!;
      cursor = { createdAt: new Date(last.created_at), id: last.id };
      await em.nativeUpdate(WorkflowReplaySchema, { id: replayId }, { done, report: { ...report }, heartbeatAt: raw('now()') });
    }
    await em.nativeUpdate(
      WorkflowReplaySchema,
      { id: replayId },
      { status: 'done', done, total: done, report: { ...report }, finishedAt: raw('now()') },
    );
  } catch (error) {
    await em.nativeUpdate(
      WorkflowReplaySchema,
      { id: replayId },
      {
        status: 'failed',
        error: error instanceof ApiError ? error.message : 'The replay failed; see the server log.',
        finishedAt: raw('now()'),
      },
    );
    throw error;
  }
}

/**
 * Runs every left-over replay (the pg-boss worker's sweep): those still queued (the process that
 * queued them stopped first) and those running without a heartbeat for {@link REPLAY_LEASE_SECONDS}
 * (their worker was killed). Returns how many it looked at; `runReplay`'s claim keeps two sweeps
 * from running the same one.
 */
export async function runQueuedReplays(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `select id from workflow_replay
      where status = 'queued' or (status = 'running' and coalesce(heartbeat_at, created_at) < now() - make_interval(secs => ?))
      order by created_at limit 10`,
    [REPLAY_LEASE_SECONDS],
  );
  for (const row of rows) await runReplay(em, row.id);
  return rows.length;
}
