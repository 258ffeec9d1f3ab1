import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { OperatorRole } from '../../entities/operator.entity.js';
import { ApiError } from '../errors.js';
import type { GraphQLContext } from './context.js';

/**
 * The mutations a `reviewer` may run besides reading: deciding cases (or sending a step back for a retake) and noting why, adding and
 * removing list entries (blocking a fraudster's face or document found in review) and replaying a
 * delivery (sends what was already sent). Every other mutation (lists themselves, workflows,
 * webhook destinations, keys, operators) is an `admin`'s.
 */
export const REVIEWER_MUTATIONS: ReadonlySet<string> = new Set([
  'reviewSession',
  'requestRetake',
  'addSessionNote',
  'addNameListEntry',
  'addDocumentListEntry',
  'addFaceListEntry',
  'deleteListEntry',
  'replayWebhookDelivery',
  'claimSession',
  'releaseSession',
  'disposeAmlHit',
]);

/** The mutations every operator runs on their own account (password, second factor), whatever the role. */
export const SELF_SERVICE_MUTATIONS: ReadonlySet<string> = new Set([
  'changeOwnPassword',
  'startTotpEnrolment',
  'confirmTotpEnrolment',
  'disableOwnTotp',
]);

/** Whether an operator of `role` may run the mutation `field`; reads and subscriptions are every role's. */
export function roleMayMutate(role: OperatorRole, field: string): boolean {
  if (role === 'admin' || SELF_SERVICE_MUTATIONS.has(field)) return true;
  if (role === 'reviewer') return REVIEWER_MUTATIONS.has(field);
  return false;
}

/**
 * Wraps every root mutation of the schema with the operator role check, whichever transport
 * carries it (HTTP, graphql-ws, the REST facade). A mutation added later is an admin's until
 * listed above, so nothing new opens to viewers by default. An operator whose password an admin
 * chose may only replace it. API keys and end-user tokens are
 * unaffected. Only the Mutation type's fields are wrapped: reads cost nothing more.
 */
export function guardMutationsByRole(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  if (!mutation) return schema;
  for (const field of Object.values(mutation.getFields())) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, context: GraphQLContext, info) => {
      const principal = context.principal;
      if (principal?.kind === 'operator' && principal.passwordChangeRequired && info.fieldName !== 'changeOwnPassword')
        throw new ApiError('forbidden', 'An admin set your password: choose your own (changeOwnPassword) before changing anything else.');
      if (principal?.kind === 'operator' && !roleMayMutate(principal.role, info.fieldName))
        throw new ApiError('forbidden', `A ${principal.role} cannot run ${info.fieldName}; ask an admin of your organisation.`);
      return resolve(source, args, context, info);
    };
  }
  return schema;
}
