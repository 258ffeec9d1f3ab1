import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { ApiError } from '../shared/errors.js';
import type { GraphQLContext } from './resolver-context.js';
import { assertAcceptableInputs } from './input-limits.js';

/**
 * Whether a GraphQL error message is graphql-js's variable coercion failure (wrong type, unknown enum
 * value, missing required variable): the client's input was wrong, whichever transport carried it.
 */
export function isVariableCoercionMessage(message: unknown): boolean {
  return typeof message === 'string' && /^Variable "\$/.test(message);
}

/**
 * Runs one typed operation in-process against the shared schema; the REST facade's client.
 * Returns the data, or throws the first error as an ApiError (unknown errors are rethrown as is).
 */
export async function runOperation<TData, TVariables>(
  schema: GraphQLSchema,
  document: TypedDocumentNode<TData, TVariables>,
  variables: TVariables,
  context: GraphQLContext,
): Promise<TData> {
  // The facade validated its own fields first; this is the same guard GraphQL clients pass.
  assertAcceptableInputs(schema, document, variables as Record<string, unknown>);
  const result = (await execute({
    schema,
    document,
    variableValues: variables as Record<string, unknown>,
    contextValue: context,
  })) as ExecutionResult<TData>;
  if (result.errors?.length) throw firstError(result.errors);
  if (!result.data) throw new Error('GraphQL operation returned neither data nor errors');
  return result.data;
}

/** Unwraps a resolver error to our ApiError where it is one. */
function firstError(errors: readonly GraphQLError[]): Error {
  const [error] = errors;
  const original = error.originalError;
  if (original instanceof ApiError) return original;
  if (error instanceof ApiError) return error;
  // Variable coercion errors carry no original error: the input itself was wrong.
  if (!original && isVariableCoercionMessage(error.message)) return new ApiError('validation_failed', error.message);
  return original ?? error;
}
