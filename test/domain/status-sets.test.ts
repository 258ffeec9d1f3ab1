import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ACTIVE_STATUSES,
  ACTIVE_STATUSES_SQL,
  INPUT_STATUSES,
  INPUT_STATUSES_SQL,
  acceptsInput,
  isActive,
  isPastExpiry,
  statusInSql,
} from '../../src/domain/session-state.js';
import { SESSION_STATUSES } from '../../src/domain/types.js';

/** Operations under test: the status sets of src/domain/session-state.ts, their predicates and their SQL. */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NOW = new Date('2026-01-01T12:00:00Z');

describe('session status sets', () => {
  it('given every status, then only pending and in_progress accept input', () => {
    expect(SESSION_STATUSES.filter(acceptsInput)).toEqual(['pending', 'in_progress']);
  });

  it('given every status, then pending, in_progress and in_review are active (they hold the idempotency slot)', () => {
    expect(SESSION_STATUSES.filter(isActive)).toEqual(['pending', 'in_progress', 'in_review']);
  });

  it('given a session taking input whose expires_at has passed, then it is past expiry', () => {
    expect(isPastExpiry({ status: 'in_progress', expiresAt: new Date(NOW.getTime() - 1) }, NOW)).toBe(true);
    expect(isPastExpiry({ status: 'pending', expiresAt: NOW }, NOW)).toBe(true);
  });

  it('given a session whose expires_at is ahead, or one no longer taking input, then it is not past expiry', () => {
    expect(isPastExpiry({ status: 'pending', expiresAt: new Date(NOW.getTime() + 1) }, NOW)).toBe(false);
    expect(isPastExpiry({ status: 'in_review', expiresAt: new Date(0) }, NOW)).toBe(false);
    expect(isPastExpiry({ status: 'approved', expiresAt: new Date(0) }, NOW)).toBe(false);
  });

  it('given a status set, then statusInSql writes one quoted literal per status in set order', () => {
    expect(statusInSql(['approved', 'declined'], 's.status')).toBe("s.status in ('approved', 'declined')");
    expect(ACTIVE_STATUSES_SQL).toBe(statusInSql(ACTIVE_STATUSES));
    expect(INPUT_STATUSES_SQL).toBe(statusInSql(INPUT_STATUSES));
  });

  it("given the sessions migration, then its partial indexes have exactly the sets' predicates (on conflict … where must repeat them)", () => {
    const migration = readFileSync(resolve(ROOT, 'src/db/migrations/Migration20261122000200Sessions.ts'), 'utf8');
    expect(migration).toMatch(new RegExp(`session_active_idempotency_index[^;]*where ${escape(ACTIVE_STATUSES_SQL)};`));
    expect(migration).toMatch(new RegExp(`session_expiry_index[^;]*where ${escape(INPUT_STATUSES_SQL)};`));
  });
});

/** A string as a literal regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
