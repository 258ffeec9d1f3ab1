import { createSourceEventStream, execute, print, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { GraphQLContext } from './resolver-context.js';

/**
 * Results already computed for one event, by selection key. Keyed weakly by the event object the
 * hub hands to every subscriber, so an event's results go once its last subscriber has them.
 */
const resultsByEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/**
 * What makes two subscriptions' results for the same event identical: the caller's scope, the
 * operation and its variables. Subscription fields are pure functions of the event (they read
 * neither the context nor the database), so equal keys give equal results.
 */
function selectionKey(args: ExecutionArgs): string {
  const principal = (args.contextValue as GraphQLContext | undefined)?.principal;
  const scope = principal && principal.kind !== 'end_user' ? `${principal.tenantId}:${principal.environment}` : 'none';
  return `${scope}\n${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? {})}\n${print(args.document)}`;
}

/** Executes the selection for one event, or reuses the result another subscriber with the same key got. */
function executeShared(args: ExecutionArgs, event: unknown, key: string): Promise<ExecutionResult> {
  if (typeof event !== 'object' || event === null) return Promise.resolve(execute({ ...args, rootValue: event }));
  let results = resultsByEvent.get(event);
  if (!results) {
    results = new Map();
    resultsByEvent.set(event, results);
  }
  let result = results.get(key);
  if (!result) {
    result = Promise.resolve(execute({ ...args, rootValue: event }));
    results.set(key, result);
  }
  return result;
}

/**
 * `subscribe` for graphql-ws that runs each event's selection once per distinct subscription
 * (not once per subscriber): thousands of consoles watching the same tenant cost one execution
 * per status change. Same contract as graphql's `subscribe`: an error result when the
 * subscription cannot start, else an iterator whose `return()` ends the source stream.
 */
export async function sharedSubscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const key = selectionKey(args);
  const iterator = source[Symbol.asyncIterator]();
  const mapped: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const step = await iterator.next();
      return step.done ? { done: true, value: undefined } : { done: false, value: await executeShared(args, step.value, key) };
    },
    async return() {
      await iterator.return?.();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
  };
  return mapped;
}
