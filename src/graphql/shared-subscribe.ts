import { createSourceEventStream, execute, print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { WebSocket } from 'ws';
import { SUBSCRIBER_QUEUE_MAX_EVENTS, SubscriberTooSlowError, type EventConsumer } from '../events/live-status.js';
import type { GraphQLContext } from './resolver-context.js';

/**
 * Results already computed for one event, by selection key. Keyed weakly by the event object the
 * hub hands to every subscriber, so an event's results go once its last subscriber has them.
 */
const resultsByEvent = new WeakMap<object, Map<string, SharedResult>>();

/**
 * Most distinct operation ids one event's result keeps a ready `next` frame for. Clients that
 * number their operations per socket (1, 2, …) send the same few ids from every socket, so a
 * broadcast writes one buffer to all of them; ids unique per subscriber (graphql-ws's own client
 * uses UUIDs) would only fill the cache, so past this many the frame is built per write.
 */
const FRAMES_PER_RESULT_MAX = 64;

/** Send options for a frame given as a buffer: still a text message, as graphql-transport-ws requires. */
const TEXT_FRAME = { binary: false } as const;

/**
 * One event's result for one selection key, and its wire form, made once for every subscriber:
 * the payload is serialised once per change, and each socket gets it wrapped in its operation id.
 */
class SharedResult {
  /** The result, once known (at once for selections whose resolvers do not wait, as every subscription field's). */
  value: ExecutionResult | undefined;
  /** The result, for the readers that take results one promise at a time. */
  readonly promise: Promise<ExecutionResult>;
  /** The serialised `payload` of the `next` message. */
  private payloadJson: string | undefined;
  /** Ready `next` frames by operation id (at most {@link FRAMES_PER_RESULT_MAX}). */
  private frames: Map<string, Buffer> | undefined;
  /** {@link payloadBytes}, counted once. */
  private bytes: number | undefined;

  /** Direct subscribers waiting for {@link value}, told once it is known (or failed). */
  private waiters: SharedResults[] | undefined;

  constructor(outcome: ExecutionResult | Promise<ExecutionResult>) {
    if (outcome instanceof Promise) {
      this.promise = outcome.then(
        (value) => {
          this.value = value;
          this.tell((waiter) => waiter.flush());
          return value;
        },
        (error: unknown) => {
          this.tell((waiter) => waiter.fail(error));
          throw error;
        },
      );
    } else {
      this.value = outcome;
      this.promise = Promise.resolve(outcome);
    }
  }

  /**
   * Has `waiter` flushed once {@link value} is known: one loop over every direct subscriber when
   * the execution settles, not a promise chain per subscriber (type-graphql's resolvers answer
   * with promises, so every subscription result arrives this way).
   */
  whenKnown(waiter: SharedResults): void {
    (this.waiters ??= []).push(waiter);
  }

  /** Tells each waiter once, then forgets them. */
  private tell(action: (waiter: SharedResults) => void): void {
    const waiters = this.waiters;
    this.waiters = undefined;
    if (!waiters) return;
    for (const waiter of waiters) action(waiter);
  }

  /** Bytes of the serialised payload: what one more waiting message holds, give or take its id. */
  get payloadBytes(): number {
    this.bytes ??= Buffer.byteLength(this.payload());
    return this.bytes;
  }

  /**
   * The graphql-transport-ws `next` message of operation `id` carrying this result: the same bytes
   * graphql-ws writes (`{"id","type","payload"}`, the result without `errors`, then the errors as
   * JSON, as its `emit.next` builds it). Call once {@link value} is known.
   */
  frame(id: string): Buffer | string {
    let frame = this.frames?.get(id);
    if (frame) return frame;
    const text = `{"id":${JSON.stringify(id)},"type":"next","payload":${this.payload()}}`;
    this.frames ??= new Map();
    if (this.frames.size >= FRAMES_PER_RESULT_MAX) return text;
    frame = Buffer.from(text);
    this.frames.set(id, frame);
    return frame;
  }

  /** The serialised `payload`, made once. */
  private payload(): string {
    if (this.payloadJson === undefined) {
      const { errors, ...withoutErrors } = this.value!;
      this.payloadJson = JSON.stringify(errors ? { ...withoutErrors, errors: errors.map((error) => error.toJSON()) } : withoutErrors);
    }
    return this.payloadJson;
  }
}

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
function sharedResult(args: ExecutionArgs, event: unknown, key: string): SharedResult {
  if (typeof event !== 'object' || event === null) return new SharedResult(execute({ ...args, rootValue: event }));
  let results = resultsByEvent.get(event);
  if (!results) {
    results = new Map();
    resultsByEvent.set(event, results);
  }
  let result = results.get(key);
  if (!result) {
    result = new SharedResult(execute({ ...args, rootValue: event }));
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
 * Has a subscription's results written straight to `socket` as graphql-transport-ws `next`
 * messages of operation `id`, each as its event is published, instead of through graphql-ws's
 * loop (for each subscriber and event: an iterator step, two promise hops, a serialisation of the
 * whole message and a write callback, which at 5,000 subscribers cost as much as the writes). The
 * bytes on the wire are the same; errors, the end and `complete` still go through graphql-ws,
 * whose loop waits on the iterator until the subscription ends. For graphql-ws's `onOperation`;
 * false, and nothing changes, when `result` is not a shared subscription whose source can push.
 */
export function deliverDirectly(result: unknown, socket: WebSocket, id: string): boolean {
  return result instanceof SharedResults && result.writeTo(socket, id);
}

/** A source stream that can hand its events over as they come (src/events/live-status.ts's queues). */
interface PushSource<T> {
  /** Hands every further event to `consumer`; false when the stream is already read or ended. */
  pushTo(consumer: EventConsumer<T>): boolean;
}

/**
 * One subscriber's results: its source events mapped through {@link sharedResult}, read one at a
 * time by graphql-ws or, after {@link deliverDirectly}, written to the socket as they come. A
 * class, not an object literal of async closures, so an idle subscription holds one small object
 * (issue 29: memory per idle subscription).
 */
class SharedResults implements AsyncIterableIterator<ExecutionResult>, EventConsumer<unknown> {
  /** The socket results are written to directly, if {@link writeTo} chose so. */
  private socket: WebSocket | null = null;
  /** The operation id direct writes carry. */
  private id = '';
  /** Results taken but not written yet, in order, while the first of them is still executing. */
  private backlog: SharedResult[] | null = null;
  /** Why direct delivery ended the subscription; `next()` rethrows it to graphql-ws. */
  private failure: unknown = undefined;

  constructor(
    private readonly args: ExecutionArgs,
    private readonly key: string,
    private readonly source: AsyncIterator<unknown>,
  ) {}

  /** See {@link deliverDirectly}. */
  writeTo(socket: WebSocket, id: string): boolean {
    const source = this.source as Partial<PushSource<unknown>>;
    if (typeof source.pushTo !== 'function') return false;
    this.socket = socket;
    this.id = id;
    if (source.pushTo(this)) return true;
    this.socket = null;
    return false;
  }

  /** Writes one event's result to the socket (direct delivery), or queues it behind results still executing; false once the client is too far behind. */
  accept(event: unknown): boolean {
    const result = sharedResult(this.args, event, this.key);
    if (result.value !== undefined && this.backlog === null) return this.write(result);
    (this.backlog ??= []).push(result);
    if (result.value === undefined) result.whenKnown(this);
    return true;
  }

  /** Writes the backlog's results whose execution finished, in order, up to the first still executing. */
  flush(): void {
    const backlog = this.backlog;
    if (!backlog || this.socket === null) return;
    let written = 0;
    while (written < backlog.length && backlog[written]!.value !== undefined) {
      if (!this.write(backlog[written]!)) {
        this.end(new SubscriberTooSlowError());
        return;
      }
      written += 1;
    }
    backlog.splice(0, written);
    if (backlog.length === 0) this.backlog = null;
  }

  /** Ends the subscription when a result it waits for failed to execute. */
  fail(error: unknown): void {
    if (this.backlog && this.socket !== null) this.end(error);
  }

  /**
   * Sends `result`'s frame unless the socket is closing (graphql-ws's own writes skip those too).
   * False when more than {@link SUBSCRIBER_QUEUE_MAX_EVENTS} messages of this size wait in the
   * socket's buffer: the same bound the queue puts on a reader that does not keep up.
   */
  private write(result: SharedResult): boolean {
    const socket = this.socket;
    if (socket === null || socket.readyState !== WebSocket.OPEN) return true;
    socket.send(result.frame(this.id), TEXT_FRAME);
    return socket.bufferedAmount <= SUBSCRIBER_QUEUE_MAX_EVENTS * result.payloadBytes;
  }

  /** Ends the source stream from a deferred write; `next()` then fails with `failure`. */
  private end(failure: unknown): void {
    this.failure ??= failure;
    this.stopWriting();
    void this.source.return?.();
  }

  /** No more direct writes: the subscription ended, so results still executing are dropped. */
  private stopWriting(): void {
    this.socket = null;
    this.backlog = null;
  }

  /** The next event's result, or done when the source ended (with direct delivery: only the end). */
  next(): Promise<IteratorResult<ExecutionResult>> {
    return this.source.next().then((step) => {
      if (this.failure !== undefined) throw this.failure;
      return step.done
        ? { done: true as const, value: undefined }
        : sharedResult(this.args, step.value, this.key).promise.then((value) => ({ done: false as const, value }));
    });
  }

  /** Ends the source stream (graphql-ws calls it on `complete` and when the socket closes). */
  async return(): Promise<IteratorResult<ExecutionResult>> {
    this.stopWriting();
    await this.source.return?.();
    return { done: true, value: undefined };
  }

  /** Ends the source stream and rethrows. */
  async throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.stopWriting();
    await this.source.return?.();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
