import type { EntityManager } from '@mikro-orm/postgresql';

/** How a batcher writes or reads: the statement for a group of items, and how many run at once. */
export interface BatcherOptions<In, Out> {
  /** Statements in flight at once, per process and database: enough to keep both the server and the database busy. */
  concurrency: number;
  /** Most items one statement takes. */
  max: number;
  /** Runs one statement for `items`; returns one result per item, in the same order. */
  run(em: EntityManager, items: In[]): Promise<Out[]>;
}

/**
 * Groups concurrent calls into one statement (group commit): a call that finds fewer than
 * `concurrency` statements in flight runs at once, alone; calls that arrive while they run queue
 * and share the next statement. No timer, so nothing waits that would not have waited anyway,
 * and the database parses, plans and commits once per group instead of once per call. When a
 * group's statement fails, each of its items runs alone, so one bad item fails only its own call.
 */
export class StatementBatcher<In, Out> {
  private readonly queue: { item: In; resolve(out: Out): void; reject(error: unknown): void }[] = [];
  private inFlight = 0;

  /** @param em  a fork of the ORM whose pool the statements run on */
  constructor(
    private readonly em: EntityManager,
    private readonly options: BatcherOptions<In, Out>,
  ) {}

  /** Queues one item; resolves with its result. */
  submit(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
      const group = this.queue.splice(0, this.options.max);
      this.inFlight += 1;
      void this.runGroup(group).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  private async runGroup(group: typeof this.queue): Promise<void> {
    try {
      const results = await this.options.run(
        this.em,
        group.map((pending) => pending.item),
      );
      group.forEach((pending, i) => pending.resolve(results[i]!));
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      await Promise.all(
        group.map((pending) =>
          this.options.run(this.em, [pending.item]).then(
            ([result]) => pending.resolve(result!),
            (itemError: unknown) => pending.reject(itemError),
          ),
        ),
      );
    }
  }
}

/** Batchers per connection (per database the process talks to), by name. */
const batchers = new WeakMap<object, Map<string, StatementBatcher<unknown, unknown>>>();

/**
 * The batcher `name` for the database behind `em`, made with `options` on first use. Statements
 * run on the pool outside any transaction: only for statements that are a unit of work alone.
 */
export function batcherFor<In, Out>(em: EntityManager, name: string, options: BatcherOptions<In, Out>): StatementBatcher<In, Out> {
  const connection = em.getConnection();
  let byName = batchers.get(connection);
  if (!byName) {
    byName = new Map();
    batchers.set(connection, byName);
  }
  let batcher = byName.get(name) as StatementBatcher<In, Out> | undefined;
  if (!batcher) {
    batcher = new StatementBatcher(em.fork(), options);
    byName.set(name, batcher as StatementBatcher<unknown, unknown>);
  }
  return batcher;
}
