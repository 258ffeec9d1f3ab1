/** Jitter applied to every retry delay, as a fraction (±20%), so failed receivers are not hit in lockstep. */
export const RETRY_JITTER_FRACTION = 0.2;
/** Longest `Retry-After` we honour, in seconds (a day, the schedule's longest step). */
export const RETRY_AFTER_MAX_SECONDS = 86_400;

/**
 * Delay before the next attempt after `attemptsMade` attempts of the current run, in
 * milliseconds, or null when the schedule is used up. A `Retry-After` from the receiver pushes
 * the delay later, never earlier. `random` is injectable for tests.
 */
export function nextRetryDelayMs(
  scheduleSeconds: readonly number[],
  attemptsMade: number,
  retryAfterSeconds: number | null = null,
  random: () => number = Math.random,
): number | null {
  const baseSeconds = scheduleSeconds[attemptsMade];
  if (baseSeconds === undefined) return null;
  const jitter = 1 + (random() * 2 - 1) * RETRY_JITTER_FRACTION;
  const scheduledMs = baseSeconds * 1000 * jitter;
  if (retryAfterSeconds === null) return Math.round(scheduledMs);
  return Math.round(Math.max(scheduledMs, Math.min(retryAfterSeconds, RETRY_AFTER_MAX_SECONDS) * 1000));
}

/** Parses a `Retry-After` header (delay-seconds or an HTTP date) into seconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined, now: Date = new Date()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}
