import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordOperatorAction, type OperatorAuditEntry } from '../operators/operator-audit.js';
import type { GraphQLContext } from './resolver-context.js';

type Args = Record<string, unknown>;
type Result = Record<string, unknown> | boolean | null | undefined;

/** The id of a mutation's answer (`{ id }`, or `{ entry: { id } }` for a face entry). */
function idOf(result: Result): string {
  if (!result || typeof result !== 'object') return '';
  const entry = result.entry as { id?: unknown } | undefined;
  return String(result.id ?? entry?.id ?? '');
}

/**
 * Mutations whose operator changes the audit log shows and which no service records itself (list
 * changes, notes, workflow drafts and publications): each maps its arguments and answer to an audit entry. The services that
 * record their own (claims, people, keys, second factors) are not listed here.
 */
export const AUDITED_MUTATIONS: Readonly<Record<string, (args: Args, result: Result) => Omit<OperatorAuditEntry, 'environment'>>> = {
  createList: (_args, result) => ({ action: 'list.created', targetType: 'list', targetId: idOf(result) }),
  updateList: (args) => ({ action: 'list.updated', targetType: 'list', targetId: String(args.id), details: { input: args.input } }),
  deleteList: (args) => ({ action: 'list.deleted', targetType: 'list', targetId: String(args.id) }),
  addNameListEntry: (args, result) => ({
    action: 'list_entry.added',
    targetType: 'list_entry',
    targetId: idOf(result),
    details: { list_id: args.listId, entry_type: 'name' },
  }),
  addDocumentListEntry: (args, result) => ({
    action: 'list_entry.added',
    targetType: 'list_entry',
    targetId: idOf(result),
    details: { list_id: args.listId, entry_type: 'document' },
  }),
  addFaceListEntry: (args, result) => ({
    action: 'list_entry.added',
    targetType: 'list_entry',
    targetId: idOf(result),
    details: { list_id: args.listId, entry_type: 'face' },
  }),
  deleteListEntry: (args) => ({
    action: 'list_entry.deleted',
    targetType: 'list_entry',
    targetId: String(args.entryId),
    details: { list_id: args.listId },
  }),
  // Workflow revisions (issue 27): workflow_publication keeps who published; the console's audit log shows it too.
  saveWorkflowDraft: (args, result) => ({
    action: 'workflow.draft_saved',
    targetType: 'workflow',
    targetId: String(args.id),
    details: { revision: result && typeof result === 'object' ? result.draftRevision : null },
  }),
  publishWorkflowRevision: (args) => ({
    action: 'workflow.published',
    targetType: 'workflow',
    targetId: String(args.id),
    details: { revision: args.revision },
  }),
  addSessionNote: (args, result) => ({
    action: 'session.note_added',
    targetType: 'session',
    targetId: String(args.sessionId),
    details: { note_id: idOf(result) },
  }),
};

/**
 * Wraps the mutations of {@link AUDITED_MUTATIONS} so that an operator's successful change is
 * written to `operator_audit` (what the console's audit log reads), whichever transport carries
 * it. API keys' changes keep their own trail (`added_by`), as before.
 */
export function auditOperatorMutations(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  if (!mutation) return schema;
  for (const [name, describe] of Object.entries(AUDITED_MUTATIONS)) {
    const field = mutation.getFields()[name];
    if (!field) continue;
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = async (source, args: Args, context: GraphQLContext, info) => {
      const result = (await resolve(source, args, context, info)) as Result;
      const principal = context.principal;
      if (principal?.kind === 'operator')
        await recordOperatorAction(context.em as EntityManager, principal, {
          ...describe(args, result),
          environment: principal.environment,
        });
      return result;
    };
  }
  return schema;
}
