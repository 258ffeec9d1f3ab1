import { REFUSALS, requireOperator } from '../src/auth/authorization.js';
import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { SessionStatusChange } from '../entities/session.entity.js';
import { signedEvidenceUrl } from '../src/evidence/evidence.service.js';
import { EvidenceObject } from './evidence.type.js';
import { ErasureObject } from './erasure.type.js';
import { SessionNoteObject } from './note.type.js';
import { addSessionNote, type SessionNote } from '../src/sessions/note.service.js';
import { eraseSession } from '../src/evidence/erasure.service.js';
import type { NodeType } from '../src/domain/types.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { createSession, sessionUrl } from '../src/sessions/create.js';
import { SESSIONS_PAGE_DEFAULT, SESSIONS_PAGE_MAX, listSessions, readSession } from '../src/sessions/read.js';
import { reviewSession } from '../src/sessions/review.js';
import { requestRetake } from '../src/sessions/retake.js';
import { approvedOnly, decisionOf } from '../src/sessions/decision.js';
import { sessionRecordOf, type NodeResultRecord, type SessionRecord } from '../src/sessions/session-record.js';
import { unixSeconds } from '../src/shared/time.js';
import { CreateSessionInput, ReviewDecisionEnum, SessionFilterInput } from './session.input.js';
import {
  CreateSessionPayload,
  DecisionObject,
  NodeResultObject,
  SessionConnection,
  SessionObject,
  StatusChangeObject,
} from './session.type.js';
import { dateOfUnixTime } from './scalars.js';
import { NodeTypeEnum } from './enums.js';
import { toWorkflowObject } from './workflow.resolver.js';
import { WorkflowObject } from './workflow.type.js';
import { toConnectionPage } from './connection.js';

/** Shapes a session row for GraphQL. */
export function toSessionObject(session: SessionRecord, context: GraphQLContext): SessionObject {
  return {
    id: session.id,
    url: sessionUrl(context.config, context.services, context.baseUrl, session.id),
    status: session.status,
    workflowId: session.workflowId,
    workflowRevision: session.workflowRevision,
    vendorData: session.vendorData,
    environment: session.environment,
    callback: session.callback,
    redirectUrl: session.redirectUrl,
    language: session.language,
    metadata: session.metadata,
    contactDetails: session.contactDetails as Record<string, unknown> | null,
    expectedDetails: session.expectedDetails as Record<string, unknown> | null,
    warnings: session.warnings,
    createdAt: unixSeconds(session.createdAt),
    updatedAt: unixSeconds(session.updatedAt),
    expiresAt: unixSeconds(session.expiresAt),
    decidedAt: session.decidedAt ? unixSeconds(session.decidedAt) : null,
    reviewEnteredAt: session.reviewEnteredAt ? unixSeconds(session.reviewEnteredAt) : null,
    complianceLevel: approvedOnly(session.status, session.complianceLevel),
    tenantId: session.tenantId,
    reasons: session.reasons,
  };
}

/** Shapes a node result row for GraphQL. */
export function toNodeResultObject(row: NodeResultRecord): NodeResultObject {
  return {
    nodeType: row.nodeType,
    status: row.status,
    required: row.required,
    provider: row.provider,
    warnings: row.warnings,
    details: row.details,
    updatedAt: unixSeconds(row.updatedAt),
  };
}

/** Shapes a note for GraphQL. */
export function toNoteObject(note: SessionNote): SessionNoteObject {
  return { ...note, createdAt: unixSeconds(note.createdAt) };
}

/** Shapes a status change row for GraphQL. */
export function toStatusChangeObject(row: SessionStatusChange): StatusChangeObject {
  return {
    id: row.id,
    fromStatus: row.fromStatus ?? null,
    toStatus: row.toStatus,
    actor: row.actor,
    actorKeyId: row.actorKeyId ?? null,
    actorOperatorId: row.actorOperatorId ?? null,
    actorName: row.actorName ?? null,
    reason: row.reason ?? null,
    at: unixSeconds(row.createdAt),
  };
}

/** Sessions: creation, reading, listing, review, and their nested fields through DataLoaders. */
@Resolver(() => SessionObject)
export class SessionResolver {
  @Mutation(() => CreateSessionPayload, {
    description: 'Starts a session, or returns the active one for the same workflow and vendorData.',
  })
  async createSession(
    @Arg('input', () => CreateSessionInput) input: CreateSessionInput,
    @Ctx() context: GraphQLContext,
  ): Promise<CreateSessionPayload> {
    const principal = requireTenant(context);
    const result = await createSession(context.em, context.services, context.config, principal, input);
    return { session: toSessionObject(result.session, context), idempotentReuse: result.idempotentReuse };
  }

  @Query(() => SessionObject, { description: 'One session of the calling tenant; NOT_FOUND otherwise.' })
  async session(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<SessionObject> {
    const principal = requireTenant(context);
    const { session, nodeResults } = await readSession(context.em, context.services, principal, id);
    context.loaders.nodeResultsBySessionId.prime(session.id, nodeResults);
    return toSessionObject(session, context);
  }

  @Query(() => SessionConnection, { description: 'Sessions of the calling tenant and environment, newest first.' })
  async sessions(
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, {
      nullable: true,
      description: `Page size, 1–${SESSIONS_PAGE_MAX}; default ${SESSIONS_PAGE_DEFAULT}.`,
    })
    first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
    @Arg('filter', () => SessionFilterInput, { nullable: true }) filter?: SessionFilterInput,
  ): Promise<SessionConnection> {
    const principal = requireTenant(context);
    const page = await listSessions(
      context.em,
      principal,
      {
        statuses: filter?.statuses ?? undefined,
        workflowId: filter?.workflowId ?? undefined,
        vendorData: filter?.vendorData ?? undefined,
        createdAfter: filter?.createdAfter != null ? dateOfUnixTime(filter.createdAfter) : undefined,
        createdBefore: filter?.createdBefore != null ? dateOfUnixTime(filter.createdBefore) : undefined,
      },
      { first: first ?? undefined, after: after ?? undefined },
    );
    return toConnectionPage(
      { rows: page.sessions, hasNextPage: page.hasNextPage },
      (session) => session,
      (session) => toSessionObject(sessionRecordOf(session), context),
      after,
    );
  }

  @Mutation(() => SessionObject, { description: 'Approves or declines an in-review session, with a reason; audited.' })
  async reviewSession(
    @Arg('id', () => String) id: string,
    @Arg('decision', () => ReviewDecisionEnum) decision: 'approved' | 'declined',
    @Arg('reason', () => String, { nullable: true, description: 'Free text for the audit trail; required unless reasonCode is given.' })
    reason: string | null,
    @Arg('reasonCode', () => String, {
      nullable: true,
      description: 'A code of the reason catalogue or of your own (reasonCodes); a decline lists it first in the decision.',
    })
    reasonCode: string | null,
    @Arg('note', () => String, { nullable: true, description: 'An optional note beside reasonCode.' }) note: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<SessionObject> {
    const principal = requireTenant(context);
    const reviewed = await reviewSession(context.em, context.services, principal, id, decision, { reason, reasonCode, note });
    return toSessionObject(sessionRecordOf(reviewed), context);
  }

  @Mutation(() => SessionObject, {
    description:
      "Sends one step of an in-review session back to the end user, with a reason; audited. The step becomes resubmission_requested (reviewer_request), the session in_progress, and the end user's next submission of it decides again.",
  })
  async requestRetake(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('nodeType', () => NodeTypeEnum) nodeType: NodeType,
    @Arg('reason', () => String, { nullable: true, description: 'Free text for the audit trail; required unless reasonCode is given.' })
    reason: string | null,
    @Arg('reasonCode', () => String, {
      nullable: true,
      description: 'A code of the reason catalogue or of your own: the person reads its sentence.',
    })
    reasonCode: string | null,
    @Arg('note', () => String, { nullable: true, description: 'A note the person reads under the sentence (preview it first).' })
    note: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<SessionObject> {
    const session = await requestRetake(context.em, context.services, context.config, requireTenant(context), sessionId, nodeType, {
      reason,
      reasonCode,
      note,
    });
    return toSessionObject(sessionRecordOf(session), context);
  }

  @Mutation(() => ErasureObject, {
    description:
      "Erases a decided or expired session's evidence and personal data on the person's request; the status, the decision, the node outcomes and the audit trail stay. 409 while the session is active.",
  })
  async eraseSession(@Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<ErasureObject> {
    const erased = await eraseSession(context.em, context.services, requireTenant(context), id);
    return { sessionId: erased.sessionId, erasedAt: unixSeconds(erased.erasedAt), evidenceDeleted: erased.evidenceDeleted };
  }

  @Mutation(() => SessionNoteObject, {
    description: "Adds a note to a session, under the author's name (reviewers and admins in the console, or a key).",
  })
  async addSessionNote(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('body', () => String) body: string,
    @Ctx() context: GraphQLContext,
  ): Promise<SessionNoteObject> {
    return toNoteObject(await addSessionNote(context.em, context.services, requireTenant(context), sessionId, body));
  }

  @FieldResolver(() => [SessionNoteObject], { description: 'Notes on the session, oldest first.' })
  async notes(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<SessionNoteObject[]> {
    return (await context.loaders.notesBySessionId.load(session.id)).map(toNoteObject);
  }

  @FieldResolver(() => WorkflowObject, { nullable: true })
  async workflow(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<WorkflowObject | null> {
    const workflow = await context.loaders.workflowById.load(session.workflowId);
    return workflow ? toWorkflowObject(workflow) : null;
  }

  @FieldResolver(() => [NodeResultObject], { description: 'Results so far, one per workflow node.' })
  async nodeResults(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<NodeResultObject[]> {
    return (await context.loaders.nodeResultsBySessionId.load(session.id)).map(toNodeResultObject);
  }

  @FieldResolver(() => [StatusChangeObject], { description: 'Every status change: actor, key or operator, time, from, to, reason.' })
  async reviewHistory(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<StatusChangeObject[]> {
    return (await context.loaders.statusChangesBySessionId.load(session.id)).map(toStatusChangeObject);
  }

  @FieldResolver(() => [EvidenceObject], {
    description:
      'The images and documents kept for operators (console sign-in only; an API key gets FORBIDDEN), each behind a short-lived URL.',
  })
  async evidence(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<EvidenceObject[]> {
    const principal = requireOperator(requireTenant(context), REFUSALS.evidence);
    return (await context.loaders.evidenceBySessionId.load(session.id)).map((item) => ({
      id: item.id,
      kind: item.kind,
      nodeType: item.nodeType,
      contentType: item.contentType,
      byteLength: item.byteLength,
      attempt: item.attempt,
      face: item.face,
      createdAt: unixSeconds(item.createdAt),
      expiresAt: unixSeconds(item.expiresAt),
      url: signedEvidenceUrl(context.services.secrets, item.id, principal),
    }));
  }

  @FieldResolver(() => DecisionObject, { description: 'The verdict, or the current status and results so far before one.' })
  async decision(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<DecisionObject> {
    const [rows, token] = await Promise.all([
      context.loaders.nodeResultsBySessionId.load(session.id),
      // decisionOf shows the token only when approved; this only spares the others the read.
      session.status === 'approved' ? context.loaders.serviceTokenBySessionId.load(session.id) : Promise.resolve(null),
    ]);
    const decision = decisionOf(
      { ...session, complianceLevel: session.complianceLevel ?? null, metadata: session.metadata ?? null },
      rows,
      token,
    );
    return {
      ...decision,
      nodeResults: decision.nodeResults.map(toNodeResultObject),
      reasons: decision.reasons.map((reason) => ({ ...reason, nodeType: (reason.nodeType as NodeType | undefined) ?? null })),
    };
  }
}
