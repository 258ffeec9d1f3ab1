import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import {
  AUDIT_LOG_PAGE_DEFAULT,
  AUDIT_LOG_PAGE_MAX,
  auditLogPage,
  type AuditLogEntry,
  type AuditLogFilter,
} from '../src/operators/audit-log.service.js';
import { toConnectionPage } from './connection.js';
import { AuditLogConnection, AuditLogEntryObject, AuditLogFilterInput } from './audit-log.type.js';
import { dateOfUnixTime } from './scalars.js';

/** The GraphQL filter as the service takes it. */
export function auditLogFilterOf(input: AuditLogFilterInput | null | undefined): AuditLogFilter {
  return {
    actor: input?.actor ?? null,
    action: input?.action ?? null,
    from: input?.from != null ? dateOfUnixTime(input.from) : null,
    to: input?.to != null ? dateOfUnixTime(input.to) : null,
  };
}

/** Shapes an audit log line for GraphQL. */
export function toAuditLogEntryObject(entry: AuditLogEntry): AuditLogEntryObject {
  return {
    id: entry.id,
    at: Math.floor(entry.at.getTime() / 1000),
    actorOperatorId: entry.actorOperatorId,
    actorName: entry.actorName,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    environment: entry.environment,
    clientAddress: entry.clientAddress,
    details: JSON.stringify(entry.details),
  };
}

/** The audit log page of the console (issue 25, "Proof"); admins signed in to the console only. */
@Resolver()
export class AuditLogResolver {
  @Query(() => AuditLogConnection, {
    description:
      "Who did what, when, from where, in the tenant and the sign-in's environment (tenant-wide changes of people in both), newest first; console admins only.",
  })
  async auditLog(
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: `Page size, 1–${AUDIT_LOG_PAGE_MAX}; default ${AUDIT_LOG_PAGE_DEFAULT}.` })
    first?: number | null,
    @Arg('after', () => String, { nullable: true, description: 'The `endCursor` of the previous page.' }) after?: string | null,
    @Arg('filter', () => AuditLogFilterInput, { nullable: true }) filter?: AuditLogFilterInput | null,
  ): Promise<AuditLogConnection> {
    const page = await auditLogPage(context.em, requireTenant(context), auditLogFilterOf(filter), { first, after });
    return toConnectionPage(page, (entry) => ({ createdAt: entry.at, id: entry.id }), toAuditLogEntryObject, after);
  }
}
