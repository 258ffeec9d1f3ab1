/**
 * The reason catalogue (issue 24): every code an engine, the verdict or a session rule emits is in
 * it, and each code has what the people who read it need: a category, a severity, retry or final,
 * a reviewer's sentence, and the person's sentence in every language of the hosted flow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtInReason,
  END_USER_MESSAGES,
  END_USER_SENTENCES,
  endUserSentence,
  explainReason,
  isRetryable,
  REASON_CATALOGUE,
  REASON_CATEGORIES,
  REASON_CODE_PATTERN,
  REASON_LANGUAGES,
  REASON_SEVERITIES,
} from '../../src/domain/reasons.js';
import { LANGUAGES } from '../../src/web/shared/i18n.js';
import { DOCUMENT_RESULT_CODES } from '../../src/engines/document/result-codes.js';
import { SANDBOX_CATALOGUE } from '../../src/engines/sandbox/catalogue.js';
import { VERDICT_REASON_CODES } from '../../src/domain/verdict.js';
import { QUALITY_RESUBMISSION_REASONS } from '../../src/domain/resubmission.js';

/** Where codes are emitted: the engines, the session rules, list gating, sharing and the domain. */
const EMITTING_ROOTS = ['src/engines', 'src/sessions', 'src/lists', 'src/sharing', 'src/domain'];

/**
 * String literals in those files that the scan below finds but that are no reason: node and check
 * statuses, request validation codes (400s, never a result), list and name-index internals.
 * A new literal must go either into the catalogue or here, knowingly.
 */
const NOT_REASONS = new Set([
  'clear',
  'passed',
  'failed',
  'review',
  'warning',
  'skipped',
  'pending',
  'yes',
  'no',
  'none',
  'required',
  'invalid',
  'invalid_image',
  'unreadable',
  'unreadable_image',
  'limit_exceeded',
  'not_in_workflow',
  'unknown_sandbox_token',
  'invalid_transition',
  'mismatch',
  'not_requested',
  'no_face',
  'multiple_faces',
  'no_face_template',
  'type_mismatch',
  'fallbacks',
  'served',
  'rewritten',
  'person',
  'organization',
  'unknown_reason_code',
  'too_long',
  'reserved',
  'optional_node_failed',
  'required_node_failed',
  'node_review',
  'reviewer_decision',
  'unknown',
  'adverse_media',
  // Why an address is unverifiable: the message of the `address_unverifiable` warning, not a code of its own.
  'state_invalid',
  'province_postcode_mismatch',
  // How an AML hit's name matched (the hit's explanation), not why a step failed.
  'consonant_skeleton',
  'fused_article',
  'same_consonants',
  'primary_name',
  'alias',
  // Capture evidence: request validation codes (400s) and how an image was made.
  'not_a_photo_step',
  'count_mismatch',
  'camera',
  'upload',
  // Session search: a field error of the request (a page size out of range), not a verdict.
  'out_of_range',
  // A phone number codes are not sent to (premium rate, satellite): a request error, not a verdict.
  'unsendable_number',
  // Which measure found a portrait replay (the embeddings or the aligned crops), not why it failed.
  'aligned_crop',
  // Where the visual zone was found on an ID page (`details.viz.zone`), not why a step failed.
  'located',
  'mrz_side_only',
  // The NOTIFY channel the engine queue's workers signal a finished job on (now under src/engines/pool/).
  'engine_task_done',
  // How hard a side is searched for an MRZ (`readMrz`'s `search`), not why a step failed.
  'shown',
  'thorough',
]);

/** Every `.ts` file under a directory. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Codes as the emitting code writes them: `result_code: 'x'`, `code: 'x'`, `resultCode = 'x'`, `finding('x'`, `['failed', 'x']`, `return 'x_match'`. */
const PATTERNS = [
  /\b(?:result_code|resultCode|reasonCode|code|[a-zA-Z]+Code)\s*[:=]\s*'([a-z][a-z0-9_]+)'/g,
  /\[\s*'(?:failed|review|passed)'\s*,\s*'([a-z][a-z0-9_]+)'\s*\]/g,
  /\bfinding\(\s*'([a-z][a-z0-9_]+)'/g,
  /\breturn '([a-z]+_[a-z0-9_]+)';/g,
  /\?\s*'([a-z][a-z0-9_]+)'\s*:\s*'([a-z][a-z0-9_]+)'/g,
  /export const [A-Z_]+ = '([a-z]+_[a-z0-9_]+)';/g,
];

function scannedCodes(): Map<string, string> {
  const found = new Map<string, string>();
  // List importers name file formats, not results.
  for (const file of EMITTING_ROOTS.flatMap(sources).filter((path) => !path.includes('/importers/'))) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of PATTERNS)
      for (const match of text.matchAll(pattern)) for (const code of match.slice(1)) if (code && !found.has(code)) found.set(code, file);
  }
  return found;
}

describe('reason catalogue', () => {
  it('given every code the engines and session rules emit today, when looked up, then the catalogue has each (a new code fails here until catalogued)', () => {
    const emitted = new Map(scannedCodes());
    for (const code of DOCUMENT_RESULT_CODES) emitted.set(code, 'DOCUMENT_RESULT_CODES');
    for (const [nodeType, catalogue] of Object.entries(SANDBOX_CATALOGUE)) {
      for (const outcome of [catalogue.otherwise, ...catalogue.values]) {
        emitted.set(outcome.resultCode, `sandbox ${nodeType}`);
        for (const warning of outcome.warnings ?? []) emitted.set(warning.code, `sandbox ${nodeType}`);
      }
    }
    for (const code of VERDICT_REASON_CODES) emitted.set(code, 'VERDICT_REASON_CODES');
    const missing = [...emitted].filter(([code]) => !NOT_REASONS.has(code) && !builtInReason(code));
    expect(missing, 'codes emitted but not catalogued (add them to src/domain/reasons.ts)').toEqual([]);
    // The scan does find them: a scan that finds nothing would pass for nothing.
    for (const code of [
      'document_expired',
      'face_mismatch',
      'aml_document_mismatch',
      'specimen_state_code',
      'tamper_suspected',
      'aml_new_hit',
    ])
      expect(emitted.has(code), code).toBe(true);
  });

  it('given the codes other branches add (CODES.md), when looked up, then each is catalogued with its agreed category and retry', () => {
    const agreed: [string, string, boolean][] = [
      ['selfie_matches_document_portrait', 'fraud', false],
      ['selfie_reused', 'fraud', false],
      ['duplicate_face', 'fraud', false],
      ['duplicate_document', 'fraud', false],
      ['presentation_attack', 'fraud', true],
      ['document_recapture', 'fraud', false],
      ['capture_integrity', 'fraud', false],
      ['active_liveness_failed', 'face', true],
      ['active_liveness_alternative', 'face', false],
      ['viz_mrz_mismatch', 'fraud', false],
    ];
    for (const [code, category, retryable] of agreed) expect(builtInReason(code), code).toMatchObject({ category, retryable });
  });

  it('given each code, when read, then it is snake_case, has a known category and severity, a reviewer sentence and a theme for the person', () => {
    const codes = REASON_CATALOGUE.map((reason) => reason.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const reason of REASON_CATALOGUE) {
      expect(reason.code).toMatch(REASON_CODE_PATTERN);
      expect(REASON_CATEGORIES).toContain(reason.category);
      expect(REASON_SEVERITIES).toContain(reason.severity);
      expect(reason.reviewer, reason.code).toMatch(/^[A-Z].+\.$/);
      expect(END_USER_MESSAGES).toContain(reason.endUser);
    }
  });

  it("given the hosted flow's languages, when the person's sentences are read, then each theme has a sentence in each language, all different from English but the English", () => {
    expect([...REASON_LANGUAGES]).toEqual([...LANGUAGES]);
    for (const language of REASON_LANGUAGES)
      for (const message of END_USER_MESSAGES) {
        expect(END_USER_SENTENCES[language][message], `${language} ${message}`).toMatch(/\S.*[.!]$/);
        if (language !== 'en') expect(END_USER_SENTENCES[language][message]).not.toBe(END_USER_SENTENCES.en[message]);
      }
    expect(endUserSentence('document_expired', 'fr')).toContain('expiré');
  });

  it('given a fraud signal, when the person is told, then the sentence names no signal (only "we could not verify")', () => {
    for (const reason of REASON_CATALOGUE.filter((candidate) => candidate.category === 'fraud')) {
      const sentence = endUserSentence(reason.code, 'en');
      expect(sentence, reason.code).not.toMatch(/tamper|chip|specimen|print|screen|duplicate|reused|fraud|portrait|signature|recapture/i);
    }
  });

  it('given the retryable codes, when a step fails with one, then it is a retake (an unreadable or expired document, wrong type, face not clear) and fraud or identity results stay final', () => {
    for (const code of [
      'image_blurry',
      'image_too_small',
      'mrz_not_found',
      'document_expired',
      'document_type_mismatch',
      'liveness_failed',
    ])
      expect(isRetryable(code), code).toBe(true);
    for (const code of [
      'document_tampered',
      'face_mismatch',
      'sanctions_match',
      'nfc_signature_invalid',
      'selfie_matches_document_portrait',
    ])
      expect(isRetryable(code), code).toBe(false);
    expect(isRetryable('not_a_code')).toBe(false);
    expect(QUALITY_RESUBMISSION_REASONS).toContain('document_expired');
    expect(QUALITY_RESUBMISSION_REASONS).not.toContain('reviewer_request');
  });

  it('given a stored reason, when explained, then stored fields win (a tenant code), else the catalogue, else the legacy cause', () => {
    expect(explainReason({ code: 'required_node_failed', cause: 'document_expired' }, () => 'x')).toEqual({
      cause: 'document_expired',
      category: 'document',
      severity: 'high',
      retryable: true,
      reviewerText: 'The document has expired.',
    });
    expect(explainReason({ code: 'list_review' }, () => 'list_review')).toMatchObject({ cause: 'list_review', category: 'screening' });
    expect(
      explainReason(
        { code: 'reviewer_decision', cause: 'acme_own', category: 'data', severity: 'low', retryable: true, reviewerText: 'Acme says no.' },
        () => 'x',
      ),
    ).toEqual({ cause: 'acme_own', category: 'data', severity: 'low', retryable: true, reviewerText: 'Acme says no.' });
    expect(explainReason({ code: 'mystery' }, () => 'mystery')).toMatchObject({ category: 'technical', retryable: false });
  });
});
