/**
 * Raw SQL: (b) the flush of noted key uses is one bulk `unnest` upsert (`on conflict … do update`)
 * guarded by `exists`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

/** How often the last uses of API keys are written, in milliseconds: the longest "last used" lags on other instances. */
export const API_KEY_USAGE_FLUSH_MS = 60_000;

/** One key's latest use seen by this process. */
export interface KeyUse {
  at: Date;
  address: string | null;
}

/**
 * When and from where each API key was last used, kept in memory per request and written to
 * `api_key_usage` in one statement per flush (every {@link API_KEY_USAGE_FLUSH_MS} and at
 * shutdown), so a request costs no database round trip for it: a busy key is written at most once
 * a flush, whatever its request rate. The row lives beside `api_key` so that writing it does not
 * bump the key cache's epoch.
 */
export class ApiKeyUsage {
  private pending = new Map<string, KeyUse>();
  /** The batch a flush is writing: still answered by {@link unwritten} until its statement commits. */
  private writing = new Map<string, KeyUse>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  /** Notes a use of a key (no I/O). */
  touch(apiKeyId: string, address: string | null): void {
    this.pending.set(apiKeyId, { at: new Date(), address });
  }

  /** Uses noted here and not written yet, so this instance's own answers are current before the flush. */
  unwritten(apiKeyId: string): KeyUse | undefined {
    return this.pending.get(apiKeyId) ?? this.writing.get(apiKeyId);
  }

  /**
   * Writes the noted uses (newest wins over what is stored) and forgets them once written; a batch
   * whose write fails goes back to the pending uses for the next flush.
   */
  flush(em: EntityManager): Promise<void> {
    const run = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = this.pending;
      this.pending = new Map();
      this.writing = batch;
      try {
        await this.write(em, batch);
      } catch (error) {
        for (const [id, use] of batch) if (!this.pending.has(id)) this.pending.set(id, use);
        throw error;
      } finally {
        this.writing = new Map();
      }
    });
    // The next flush waits for this one but does not inherit its failure.
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** One upsert of `batch` into `api_key_usage`. */
  private async write(em: EntityManager, batch: Map<string, KeyUse>): Promise<void> {
    const ids = [...batch.keys()];
    await em.fork().execute(
      `insert into api_key_usage (api_key_id, last_used_at, last_used_address)
         select u.id, u.at, u.address from unnest(?::uuid[], ?::timestamptz[], ?::text[]) as u(id, at, address)
          where exists (select 1 from api_key k where k.id = u.id)
         on conflict (api_key_id) do update set last_used_at = excluded.last_used_at, last_used_address = excluded.last_used_address
          where api_key_usage.last_used_at < excluded.last_used_at`,
      [
        `{${ids.join(',')}}`,
        `{${ids.map((id) => `"${batch.get(id)!.at.toISOString()}"`).join(',')}}`,
        `{${ids.map((id) => textElement(batch.get(id)!.address)).join(',')}}`,
      ],
      'run',
    );
  }

  /** Flushes every `intervalMs` until {@link stop}. */
  start(em: EntityManager, logger: Logger, intervalMs = API_KEY_USAGE_FLUSH_MS): void {
    this.timer = setInterval(
      () => void this.flush(em).catch((error: unknown) => logger.warn({ err: error }, 'API key usage not written')),
      intervalMs,
    );
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async stop(em: EntityManager): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush(em);
  }
}

/** One element of a PostgreSQL text array literal: NULL, or the value quoted with its quotes and backslashes escaped. */
function textElement(value: string | null): string {
  return value === null ? 'NULL' : `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}
