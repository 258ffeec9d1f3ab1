/** Helpers shared by the sandbox engines. */
import type { Warning } from '../../domain/types.js';
import { validationError } from '../../shared/errors.js';
import { findSandboxOutcome, unknownTokenError, type SandboxNodeCatalogue, type SandboxOutcome } from './catalogue.js';

/** Options of every sandbox engine factory. */
export interface SandboxEngineOptions {
  /**
   * The clock for dates the sandbox invents (document expiry, bill issue date), so tests can pin it.
   * @default () => new Date()
   */
  now?: () => Date;
}

/** Milliseconds in one day, for date arithmetic. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` of the day `offsetDays` after `now`, in UTC so results do not depend on the host's zone. */
export function isoDay(now: Date, offsetDays: number): string {
  return new Date(now.getTime() + offsetDays * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The outcome for one field value. An unknown `sandbox:` token is a 400, not a silent pass:
 * input validation should have refused it with `checkSandboxInput`, this is the backstop.
 */
export function resolveOutcome<Effect>(node: SandboxNodeCatalogue<Effect>, fieldValue: string): SandboxOutcome<Effect> {
  const lookup = findSandboxOutcome(node, fieldValue);
  if (lookup.kind === 'unknown_token') {
    throw validationError([unknownTokenError(node as SandboxNodeCatalogue<unknown>, lookup.token)]);
  }
  return lookup.outcome;
}

/** Fresh copies, so a caller mutating a result cannot change the catalogue. */
export function copyWarnings(warnings: readonly Warning[]): Warning[] {
  return warnings.map((warning) => ({ ...warning }));
}
