/**
 * Shared rate-limit counters without a database round trip per request (issue 29): a process
 * reserves a block of a key's points in one upsert and spends it in memory, and answers the
 * failed-authentication checks from a short-lived copy. The database still holds every point a
 * process took, so instances share one count; a reservation is small next to what is left of the
 * limit (an eighth), and 1 near the end, so the last points of a window are taken one at a time.
 */
import { LRUCache } from 'lru-cache';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Share of a key's remaining points one reservation takes (1 / RESERVE_DIVISOR), so that other instances still find points. */
export const RESERVE_DIVISOR = 8;
/** Most points one reservation takes: a process that stops keeps at most this many points of a window unused. */
export const RESERVE_MAX = 64;
/** Keys whose reservations one process remembers; the least recently used is dropped first (its unused points are lost). */
const RESERVED_KEYS_MAX = 100_000;
/**
 * How long a failed-authentication check read from the database is reused, in milliseconds: the
 * longest a block recorded by another instance takes to apply here (this process's own failures
 * apply at once).
 */
export const BLOCK_CHECK_TTL_MS = 1000;

/** What a charge answers: the points left of the window as this process knows them, and when it resets. */
export interface Charge {
  remainingPoints: number;
  msBeforeNext: number;
}

/** Points reserved for one key in this process. */
interface Reservation {
  /** Points taken from the shared count and not spent yet. */
  tokens: number;
  /** The shared count right after the last reservation. */
  points: number;
  /** When the window ends (epoch milliseconds). */
  expiresAt: number;
  /** The reservation under way, which other charges of the key wait for. */
  pending: Promise<void> | null;
}

/**
 * A limit of `quota` points per window on a shared counter (rate-limiter-flexible's PostgreSQL
 * store), charged one point per request from blocks reserved in advance. Refusals are exact: a
 * key is refused once the shared count, reservations included, is past the quota; a key that
 * reached it is refused from memory until its window ends.
 */
export class ReservedCounter {
  private readonly reservations = new LRUCache<string, Reservation>({ max: RESERVED_KEYS_MAX });

  constructor(
    private readonly counter: RateLimiterAbstract,
    private readonly quota: number,
  ) {}

  /** Takes one point of `key`; throws a RateLimiterRes (as rate-limiter-flexible does) when none is left. */
  async consume(key: string): Promise<Charge> {
    for (;;) {
      const now = Date.now();
      let reservation = this.reservations.get(key);
      if (reservation?.pending) {
        await reservation.pending;
        continue;
      }
      if (reservation && reservation.expiresAt <= now) {
        this.reservations.delete(key);
        reservation = undefined;
      }
      if (reservation && reservation.tokens > 0) {
        reservation.tokens -= 1;
        return { remainingPoints: this.quota - reservation.points + reservation.tokens, msBeforeNext: reservation.expiresAt - now };
      }
      if (reservation && reservation.points >= this.quota) {
        // The count only grows within a window: refused until it ends, without asking the database.
        throw new RateLimiterRes(0, reservation.expiresAt - now, reservation.points, false);
      }
      const left = reservation ? this.quota - reservation.points : 0;
      const size = Math.max(1, Math.min(RESERVE_MAX, Math.floor(left / RESERVE_DIVISOR)));
      const entry: Reservation = reservation ?? { tokens: 0, points: 0, expiresAt: now + 1, pending: null };
      let refusal: RateLimiterRes | null = null;
      entry.pending = this.reserve(key, size, entry).catch((error: unknown) => {
        if (error instanceof RateLimiterRes) refusal = error;
        else throw error;
      });
      this.reservations.set(key, entry);
      try {
        await entry.pending;
      } finally {
        entry.pending = null;
      }
      if (refusal) throw refusal;
    }
  }

  /** Adds `size` points to the shared count and keeps what the quota still allowed of them; rejects with the refusal when nothing was. */
  private async reserve(key: string, size: number, entry: Reservation): Promise<void> {
    let result: RateLimiterRes;
    try {
      result = await this.counter.consume(key, size);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      result = error;
    }
    const granted = Math.max(0, Math.min(size, this.quota - (result.consumedPoints - size)));
    entry.points = result.consumedPoints;
    entry.tokens = granted;
    entry.expiresAt = Date.now() + result.msBeforeNext;
    if (granted === 0) throw result;
  }
}

/**
 * Reads of a failed-authentication counter, reused for BLOCK_CHECK_TTL_MS; a failure counted in
 * this process drops the key's copy so that its block applies to the next request at once.
 */
export class CachedBlockCheck {
  private readonly reads = new LRUCache<string, { consumed: number; expiresAt: number; at: number } | { consumed: null; at: number }>({
    max: RESERVED_KEYS_MAX,
  });

  private readonly inFlight = new Map<string, Promise<RateLimiterRes | null>>();

  constructor(private readonly counter: RateLimiterAbstract) {}

  /** The counter of `key` (null when it has none), at most BLOCK_CHECK_TTL_MS old. */
  async get(key: string): Promise<RateLimiterRes | null> {
    const now = Date.now();
    const cached = this.reads.get(key);
    if (cached && now - cached.at < BLOCK_CHECK_TTL_MS) {
      if (cached.consumed === null || cached.expiresAt <= now) return null;
      return new RateLimiterRes(0, cached.expiresAt - now, cached.consumed, false);
    }
    // Concurrent checks of one key share one read.
    let read = this.inFlight.get(key);
    if (!read) {
      const started: Promise<RateLimiterRes | null> = this.counter.get(key).finally(() => {
        if (this.inFlight.get(key) === started) this.inFlight.delete(key);
      });
      read = started;
      this.inFlight.set(key, read);
      const value = await read;
      this.reads.set(
        key,
        value === null ? { consumed: null, at: now } : { consumed: value.consumedPoints, expiresAt: now + value.msBeforeNext, at: now },
      );
      return value;
    }
    return read;
  }

  /** Counts one failure of `key` in the shared counter; the next check reads it back. */
  async consume(key: string): Promise<RateLimiterRes> {
    this.reads.delete(key);
    this.inFlight.delete(key);
    try {
      return await this.counter.consume(key);
    } finally {
      this.reads.delete(key);
    }
  }
}
