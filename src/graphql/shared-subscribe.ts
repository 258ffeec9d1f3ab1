import { createSourceEventStream, execute, print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { GraphQLContext } from './resolver-context.js';

/**
 * Results already computed for one event, by selection key. Keyed weakly by the event object the
 * hub hands to every subscriber, so an event's results go once its last subscriber has them.
 */
const resultsByEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/**
 * Each document's printed text, made once: documents are shared per distinct operation text
 * (src/graphql/document-cache.ts), and a text printed per subscription kept its ~40 pieces alive
 * for the subscription's life (1–2 KB each of thousands of idle subscriptions).
 */
const printedDocuments = new WeakMap<DocumentNode, string>();

/** The printed text of `document`, from {@link printedDocuments}. */
function printedOnce(document: DocumentNode): string {
  let printed = printedDocuments.get(document);
  if (printed === undefined) {
    printed = print(document);
    printedDocuments.set(document, printed);
  }
  return printed;
}

/**
 * What makes two subscriptions' results for the same event identical: the caller's scope, the
 * operation and its variables. Subscription fields are pure functions of the event (they read
 * neither the context nor the database), so equal keys give equal results.
 */
function selectionKey(args: ExecutionArgs): string {
  const principal = (args.contextValue as GraphQLContext | undefined)?.principal;
  const scope = principal && principal.kind !== 'end_user' ? `${principal.tenantId}:${principal.environment}` : 'none';
  return `${scope}\n${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? {})}\n${printedOnce(args.document)}`;
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
  return new SharedResults(args, selectionKey(args), source[Symbol.asyncIterator]());
}

/**
 * One subscriber's results: its source events mapped through {@link executeShared}. A class, not
 * an object literal of async closures, so an idle subscription holds one small object (issue 29:
 * memory per idle subscription).
 */
class SharedResults implements AsyncIterableIterator<ExecutionResult> {
  constructor(
    private readonly args: ExecutionArgs,
    private readonly key: string,
    private readonly source: AsyncIterator<unknown>,
  ) {}

  /** The next event's result, or done when the source ended. */
  next(): Promise<IteratorResult<ExecutionResult>> {
    return this.source
      .next()
      .then((step) =>
        step.done
          ? { done: true as const, value: undefined }
          : executeShared(this.args, step.value, this.key).then((value) => ({ done: false as const, value })),
      );
  }

  /** Ends the source stream (graphql-ws calls it on `complete` and when the socket closes). */
  async return(): Promise<IteratorResult<ExecutionResult>> {
    await this.source.return?.();
    return { done: true, value: undefined };
  }

  /** Ends the source stream and rethrows. */
  async throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    await this.source.return?.();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
