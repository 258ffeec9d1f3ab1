import { Field, InputType, ObjectType } from 'type-graphql';
import type { ApiKeyEnvironment } from '../entities/api-key.entity.js';
import { Connection, type ConnectionPage } from './connection.js';
import { EnvironmentEnum } from './enums.js';
import { UnixTimeScalar } from './scalars.js';

/** One line of the audit log: who did what, when, from where. */
@ObjectType('AuditLogEntry', { description: 'One audited action: who did what to which object, when and from which address.' })
export class AuditLogEntryObject {
  @Field(() => String)
  id!: string;

  @Field(() => UnixTimeScalar, { description: 'Unix seconds.' })
  at!: number;

  @Field(() => String, { nullable: true, description: "The operator's id; null when an API key acted." })
  actorOperatorId!: string | null;

  @Field(() => String, { description: "The operator's name at the time, or `API key <prefix>`." })
  actorName!: string;

  @Field(() => String, {
    description:
      'What was done: session.approved, session.declined, session.retake_requested, session.claimed, evidence.viewed, list_entry.added, api_key.created, export.sessions_csv, …',
  })
  action!: string;

  @Field(() => String, { description: 'session, operator, api_key, list, list_entry, export, invitation, workflow, assignment_rule.' })
  targetType!: string;

  @Field(() => String)
  targetId!: string;

  @Field(() => EnvironmentEnum, { nullable: true, description: 'Null for tenant-wide objects (operators).' })
  environment!: ApiKeyEnvironment | null;

  @Field(() => String, {
    nullable: true,
    description: 'The client address of the console sign-in the action came through; null when unknown.',
  })
  clientAddress!: string | null;

  @Field(() => String, { description: 'What else was recorded (reason, list, filter), as a JSON object.' })
  details!: string;
}

/** What the audit log can be narrowed to. */
@InputType('AuditLogFilterInput', { description: 'Narrows the audit log; every field optional.' })
export class AuditLogFilterInput {
  @Field(() => String, { nullable: true, description: "Part of the actor's name (any case), or an operator's id." })
  actor?: string | null;

  @Field(() => String, { nullable: true, description: 'One action exactly, e.g. session.declined.' })
  action?: string | null;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds (or ISO 8601), inclusive.' })
  from?: number | null;

  @Field(() => UnixTimeScalar, { nullable: true, description: 'Unix seconds (or ISO 8601), exclusive.' })
  to?: number | null;
}

/** The audit log, a page at a time. */
export const AuditLogConnection = Connection(AuditLogEntryObject, 'AuditLog', {
  description: 'A page of the audit log, newest first.',
});
/** A page of the audit log as resolvers return it. */
export type AuditLogConnection = ConnectionPage<AuditLogEntryObject>;
