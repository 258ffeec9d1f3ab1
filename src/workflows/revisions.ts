/**
 * Workflow revisions (issue 27): every save writes an immutable `workflow_revision` row (the whole
 * definition as JSON); the workflow row's columns are its published revision, the one new sessions
 * run. Sessions keep the revision they started with (`session.workflow_revision`) to their end,
 * and every publication is audited in `workflow_publication` with who published.
 *
 * Raw SQL: (b) a revision is written with an optional `on conflict (workflow_id, revision) do
 * nothing`.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  WorkflowPublicationSchema,
  WorkflowRevisionSchema,
  WorkflowSchema,
  type Workflow,
  type WorkflowDefinition,
} from '../../entities/workflow.entity.js';
import type { Session } from '../../entities/session.entity.js';
import { auditIdentityOf, type Principal } from '../auth/context.js';
import { ApiError } from '../shared/errors.js';

/** One revision as listed. */
export interface RevisionSummary {
  revision: number;
  createdAt: Date;
  createdBy: string | null;
  definition: WorkflowDefinition;
}

/** One publication as audited. */
export interface PublicationRecord {
  revision: number;
  previousRevision: number | null;
  actorName: string | null;
  actorKeyId: string | null;
  publishedAt: Date;
}

/** Writes a revision once; `ifAbsent` leaves an existing one as it is (built-ins are synced at every start). */
export async function insertRevision(
  em: EntityManager,
  workflowId: string,
  revision: number,
  definition: WorkflowDefinition,
  createdBy: string | null,
  ifAbsent: boolean,
): Promise<void> {
  await em.execute(
    `insert into workflow_revision (workflow_id, revision, definition, created_at, created_by) values (?, ?, ?::jsonb, now(), ?)${
      ifAbsent ? ' on conflict (workflow_id, revision) do nothing' : ''
    }`,
    [workflowId, revision, JSON.stringify(definition), createdBy],
  );
}

/** A stored definition: the driver may hand jsonb holding a JSON string back as that string. */
function definitionOf(definition: WorkflowDefinition | string): WorkflowDefinition {
  return typeof definition === 'string' ? (JSON.parse(definition) as WorkflowDefinition) : definition;
}

/** The number the next save of a workflow gets (call with the workflow row locked). */
export async function nextRevision(em: EntityManager, workflowId: string): Promise<number> {
  const last = await em.findOne(
    WorkflowRevisionSchema,
    { workflowId },
    { fields: ['revision'], orderBy: { revision: 'desc' }, disableIdentityMap: true },
  );
  return Number(last?.revision ?? 0) + 1;
}

/** Audits a publication with who published it. */
export async function recordPublication(
  em: EntityManager,
  workflowId: string,
  revision: number,
  previousRevision: number | null,
  principal: Principal | null,
): Promise<void> {
  const who = auditIdentityOf(principal);
  await em.insert(WorkflowPublicationSchema, {
    id: randomUUID(),
    workflowId,
    revision,
    previousRevision,
    actorKeyId: who.keyId,
    actorOperatorId: who.operatorId,
    actorName: who.name,
  });
}

/** The definition of one revision of a workflow, or 404 `not_found`. */
export async function revisionDefinition(em: EntityManager, workflowId: string, revision: number): Promise<WorkflowDefinition> {
  const row = await em.findOne(WorkflowRevisionSchema, { workflowId, revision }, { fields: ['definition'], disableIdentityMap: true });
  if (!row) throw new ApiError('not_found', `Revision ${revision} of workflow ${workflowId} not found.`);
  return definitionOf(row.definition);
}

/** Every revision of a workflow, newest first. */
export async function listRevisions(em: EntityManager, workflowId: string): Promise<RevisionSummary[]> {
  const rows = await em.find(WorkflowRevisionSchema, { workflowId }, { orderBy: { revision: 'desc' }, disableIdentityMap: true });
  return rows.map((row) => ({
    revision: Number(row.revision),
    createdAt: new Date(row.createdAt),
    createdBy: row.createdBy ?? null,
    definition: definitionOf(row.definition),
  }));
}

/** Every publication of a workflow, newest first. */
export async function listPublications(em: EntityManager, workflowId: string): Promise<PublicationRecord[]> {
  const rows = await em.find(
    WorkflowPublicationSchema,
    { workflowId },
    {
      fields: ['revision', 'previousRevision', 'actorName', 'actorKeyId', 'publishedAt'],
      orderBy: { publishedAt: 'desc', id: 'asc' },
      disableIdentityMap: true,
    },
  );
  return rows.map((row) => ({
    revision: Number(row.revision),
    previousRevision: row.previousRevision == null ? null : Number(row.previousRevision),
    actorName: row.actorName ?? null,
    actorKeyId: row.actorKeyId ?? null,
    publishedAt: new Date(row.publishedAt),
  }));
}

/**
 * The workflow a started session runs: its row when the session runs the published revision (or
 * predates revisions), else a detached copy with the session's revision's definition, so a
 * publication never changes a session in flight. The copy is never flushed.
 */
export async function workflowOfSession(em: EntityManager, session: Pick<Session, 'workflow' | 'workflowRevision'>): Promise<Workflow> {
  const workflow = await em.findOneOrFail(WorkflowSchema, { id: session.workflow.id });
  const revision = session.workflowRevision;
  if (revision === null || revision === undefined || revision === workflow.publishedRevision) return workflow;
  const definition = await revisionDefinition(em, workflow.id, revision);
  return { ...workflow, ...definition, publishedRevision: workflow.publishedRevision } as Workflow;
}
