/**
 * Rules that turn what an engine found into a node's outcome, the same for the sandbox and the
 * live engines (which import them from here, never from each other).
 */
import type { NodeStatus, Warning } from './types.js';

/**
 * Node status of an AML screening: at or above the workflow threshold fails, any remaining hit
 * asks for review, no hit passes.
 */
export function amlNodeStatus(score: number, hitCount: number, threshold: number): Exclude<NodeStatus, 'pending' | 'skipped'> {
  if (score >= threshold) return 'failed';
  if (hitCount > 0) return 'review';
  return 'passed';
}

/** Folds case, accents and spacing so "sandbox  PÉP" finds "Sandbox Pep". */
export function normaliseName(value: string): string {
  return value.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The identity fields a document is compared on with a session's `expected_details`. */
export interface ComparedDetails {
  first_name?: string;
  last_name?: string;
  date_of_birth?: string;
  country?: string;
}

/**
 * Mismatch warnings between what a document shows and the session's `expected_details`. Only
 * fields present on both sides are compared: a missing field is no evidence either way.
 */
export function expectedDetailsWarnings(given: ComparedDetails, expected: ComparedDetails | undefined): Warning[] {
  if (expected === undefined) return [];
  const warnings: Warning[] = [];
  const compare = (field: keyof ComparedDetails, code: string) => {
    const value = given[field];
    const wanted = expected[field];
    if (value === undefined || wanted === undefined) return;
    if (normaliseName(value) === normaliseName(wanted)) return;
    warnings.push({ code, field, message: `${field} on the document does not match expected_details.` });
  };
  compare('first_name', 'name_mismatch');
  compare('last_name', 'name_mismatch');
  compare('date_of_birth', 'date_of_birth_mismatch');
  compare('country', 'country_mismatch');
  return warnings;
}
