import { validationError } from './errors.js';

/**
 * Keyset pagination shared by every newest-first listing (sessions, ledger, webhook deliveries):
 * a page ends at a (created_at, id) position, and the next page starts strictly before it, so
 * rows inserted meanwhile neither shift nor repeat what a client already read.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A position in a newest-first listing: the last row of a page. */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

/** Encodes a position as an opaque cursor. Timestamps must have millisecond precision at most. */
export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString('base64url');
}

/** Reads a cursor back; anything this API did not produce is a 400 naming `field`. */
export function decodeKeysetCursor(cursor: string, field: string): KeysetPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    const date = new Date(String(createdAt));
    // Every keyset listing is of rows with UUID ids; anything else would only reach the database as a cast error.
    if (Number.isNaN(date.getTime()) || typeof id !== 'string' || !UUID.test(id)) throw new Error('bad cursor');
    return { createdAt: date, id };
  } catch {
    throw validationError([{ field, code: 'invalid', message: `${field} is not a cursor this API returned` }]);
  }
}

/** Checks a page size (an integer from 1 to `max`); a 400 naming `field` otherwise. */
export function assertPageSize(size: number, max: number, field: string): void {
  if (Number.isInteger(size) && size >= 1 && size <= max) return;
  throw validationError([{ field, code: 'invalid', message: `${field} must be an integer from 1 to ${max}` }]);
}

/** The MikroORM filter for rows strictly after a position in newest-first order. */
export function olderThan(position: KeysetPosition): Record<string, unknown> {
  return afterPosition(position, 'desc');
}

/**
 * The MikroORM filter for rows strictly after a position in a listing ordered by (`dateField`, id),
 * newest first (`desc`) or oldest first (`asc`: queues and timelines read in the order things happened).
 */
export function afterPosition(position: KeysetPosition, order: 'asc' | 'desc', dateField = 'createdAt'): Record<string, unknown> {
  const beyond = order === 'desc' ? '$lt' : '$gt';
  return {
    $or: [{ [dateField]: { [beyond]: position.createdAt } }, { [dateField]: position.createdAt, id: { [beyond]: position.id } }],
  };
}
