import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { z } from 'zod';
import type { ErrorCode } from '../shared/errors.js';

/** HTTP methods the facade serves. */
export type RestMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The validated parts of a REST request a route maps to GraphQL variables. */
export interface RestInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * One REST route: which GraphQL operation it runs and how the request maps to the operation's
 * variables and the result back to the spec's snake_case JSON. Routes hold no logic of their own.
 */
export interface RestRoute<TData = any, TVariables = any, P = any, Q = any, B = any> {
  method: RestMethod;
  /** Fastify path, e.g. `/v1/workflows/:workflow_id`. */
  path: string;
  /** Stable OpenAPI operation id. */
  operationId: string;
  /** One-line OpenAPI summary. */
  summary: string;
  /** OpenAPI tag (the resource noun). */
  tag: string;
  /**
   * Who may call: the tenant's API key (default), or also the end user's session token of the
   * session `url` (`x-session-token`), as the end-user GraphQL operations allow.
   */
  credential?: 'api_key' | 'api_key_or_session_token';
  /** The GraphQL operation this route runs against the shared schema. */
  operation: TypedDocumentNode<TData, TVariables>;
  /** Path parameters, validated. */
  params?: z.ZodType<P>;
  /** Query string, validated (values arrive as strings and may be coerced). */
  query?: z.ZodType<Q>;
  /** JSON body, validated strictly (no coercion). */
  body?: z.ZodType<B>;
  /**
   * Checks that answer before anything else is validated, from the raw path parameters: a PATCH of a
   * built-in workflow is 403 whatever its body holds.
   */
  before?(params: Record<string, string>): void;
  /** Maps the validated request to the operation's variables. */
  variables(input: RestInput<P, Q, B>): TVariables;
  /** Success status, or a function of the result (201 new vs 200 reused). */
  status: number | ((data: TData) => number);
  /** Maps the operation's data to the response body; undefined means no body. */
  present(data: TData): unknown;
  /** Schema of the success body, for the OpenAPI document and the tests. */
  response?: z.ZodType;
  /**
   * Error codes this operation answers beyond those every route of its shape shares (credentials,
   * validation, not_found for a path id, conflict for a write): the OpenAPI document lists them
   * under their statuses so that a client can handle each one.
   */
  problems?: readonly ErrorCode[];
}

/** Declares a route with its types inferred from the operation and schemas. */
export function defineRoute<TData, TVariables, P = undefined, Q = undefined, B = undefined>(
  route: RestRoute<TData, TVariables, P, Q, B>,
): RestRoute<TData, TVariables, P, Q, B> {
  return route;
}

/** Largest value of GraphQL's 32-bit Int: integer query parameters bound for an Int argument stop here. */
export const GRAPHQL_INT_MAX = 2_147_483_647;
