import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { ApiKeyEpochSchema } from '../../entities/api-key.entity.js';
import type { ApiKeyPrincipal } from './context.js';

/**
 * How often a server reads the `api_key_epoch` counter, in milliseconds: the longest a revocation
 * made by another process (the CLI, another instance) takes to stop being accepted here.
 * Revocations made in this process apply at once.
 */
export const API_KEY_EPOCH_POLL_MS = 200;
/** Most API keys one process keeps principals for; the least recently used is dropped first. */
export const API_KEY_CACHE_MAX = 10_000;

/**
 * Principals of recently used API keys, keyed by key hash, so that a request costs no query for
 * its key. The cache serves only while its poll of `api_key_epoch` (bumped by a trigger on every
 * change to `api_key`) is fresh; any change, here or elsewhere, empties it.
 */
export class ApiKeyCache {
  private readonly entries = new LRUCache<string, ApiKeyPrincipal>({ max: API_KEY_CACHE_MAX });
  /** Bumped on every invalidation, so a lookup that raced a revocation is not stored. */
  private generation = 0;
  /** Last epoch read, or null while none is fresh (the cache then serves nothing). */
  private epoch: string | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** The cached principal of a key hash, when the cache is live. */
  get(keyHash: string): ApiKeyPrincipal | undefined {
    return this.epoch === null ? undefined : this.entries.get(keyHash);
  }

  /** A token to pass to {@link remember}: taken before reading a key from the database. */
  begin(): number {
    return this.generation;
  }

  /** Keeps a principal read from the database, unless keys changed since {@link begin}. */
  remember(keyHash: string, principal: ApiKeyPrincipal, token: number): void {
    if (this.epoch === null || token !== this.generation) return;
    this.entries.set(keyHash, principal);
  }

  /** Drops every cached principal: the app calls it after a key change it made committed, so the change applies at once. */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Starts polling the epoch with `em` (forked per poll); the cache serves once the first read succeeds. */
  async start(em: EntityManager, logger: Logger): Promise<void> {
    await this.poll(em, logger);
    let polling = false;
    this.timer = setInterval(() => {
      if (polling) return;
      polling = true;
      void this.poll(em, logger).finally(() => (polling = false));
    }, API_KEY_EPOCH_POLL_MS);
    this.timer.unref();
  }

  /** Stops polling and serving. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.epoch = null;
    this.invalidate();
  }

  /** Reads the epoch; a change or a failed read empties the cache (a failed read also turns it off). */
  private async poll(em: EntityManager, logger: Logger): Promise<void> {
    let epoch: string | null = null;
    try {
      const row = await em.fork().findOne(ApiKeyEpochSchema, { singleton: true }, { fields: ['epoch'] });
      epoch = row?.epoch ?? null;
    } catch (error) {
      if (this.epoch !== null) logger.warn({ err: error }, 'API key cache off: cannot read api_key_epoch');
    }
    if (epoch !== this.epoch) {
      this.invalidate();
      this.epoch = epoch;
    }
  }
}
