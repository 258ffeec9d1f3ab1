/** Renders `docs/sandbox.md` from the catalogue, so the documentation cannot drift from the engines. */
import type { NodeType } from '../../domain/types.js';
import { NODE_TYPES } from '../../domain/types.js';
import { NODE_CATALOGUE } from '../../domain/workflow.js';
import { riskBand } from '../aml/score.js';
import { storedDetails } from '../stored-details.js';
import {
  SANDBOX_CATALOGUE,
  SANDBOX_TOKEN_PREFIX,
  type SandboxCatalogue,
  type SandboxMatching,
  type SandboxNodeCatalogue,
  type SandboxOutcome,
} from './catalogue.js';

/** Path of the generated file, relative to the repository root. */
export const SANDBOX_DOCS_PATH = 'docs/sandbox.md';

type EffectOf<T extends NodeType> = SandboxCatalogue[T] extends SandboxNodeCatalogue<infer Effect> ? Effect : never;

/** One-line summaries of each node type's effect, for the Details column. */
const SUMMARISE: { [T in NodeType]: (effect: EffectOf<T>) => string } = {
  document_verification: (effect) => {
    // The checks as the spec names them (the details a client reads).
    const overrides = Object.entries(storedDetails(effect.checks)).map(([check, outcome]) => `${check} ${outcome}`);
    return overrides.length === 0 ? 'every check passed' : overrides.join(', ');
  },
  biometric_kyc: (effect) => `liveness ${effect.liveness}, face_match ${effect.faceMatch}, similarity ${effect.similarity}`,
  aml_screening: (effect) => {
    const score = Math.max(0, ...effect.hits.map((hit) => hit.score));
    const hits = effect.hits.length === 0 ? 'no hits' : `hit on ${effect.hits.map((hit) => `\`${hit.list}\``).join(', ')}`;
    return `score ${score}, risk_band ${riskBand(score)}, ${hits}`;
  },
  phone_verification: (effect) => `code_match ${effect.codeMatch}, line_risk ${effect.lineRisk}`,
  proof_of_address: (effect) =>
    `name_match ${effect.nameMatch === 'auto' ? 'passed (skipped without expected_name)' : effect.nameMatch}, geocode ${effect.geocode}, freshness ${effect.stale ? 'failed' : 'passed'}, tamper_score ${effect.tamperScore}`,
  business_registry: (effect) =>
    `registry_found ${effect.registryFound}, company_active ${effect.companyActive}, name_match ${effect.nameMatch}` +
    (effect.companyStatus === null ? '' : `, status ${effect.companyStatus}`),
};

const MATCHING_TEXT: Record<SandboxMatching, string> = {
  token: `exact token; a value starting with \`${SANDBOX_TOKEN_PREFIX}\` that is not listed is refused with 400 \`validation_failed\` (field code \`unknown_sandbox_token\`)`,
  name_contains: 'the field contains the value, ignoring case, accents and extra spaces; the first listed value wins',
  exact: 'exact value',
};

/** Builds the whole Markdown text of `docs/sandbox.md`. */
export function renderSandboxDocs(): string {
  const lines: string[] = [
    '# Sandbox magic values',
    '',
    '<!-- Generated from src/engines/sandbox/catalogue.ts by renderSandboxDocs(); do not edit by hand.',
    '     Regenerate with: npx tsx scripts/generate-sandbox-docs.ts -->',
    '',
    'With a sandbox API key every node runs on the deterministic sandbox provider instead of the live',
    'engines. Like test card numbers, the values below produce a known outcome, so an integration can',
    'reach approved, declined and in-review sessions without real documents. Results have the same',
    'shape as with a live key; only the provider (`sandbox:<job>`) differs.',
    '',
    '- Image fields take a real image as a `data:` URI (the happy path) or a token such as',
    '  `sandbox:expired`. Images are checked as with a live key: the type must be one the live engine',
    '  accepts and the bytes must decode (a URL, text, a GIF or a truncated JPEG get the same 400 as',
    '  live); only the verdict comes from the values below.',
    '- A node that passes with a warning sends the session to `in_review`, like a `review` node.',
    '- Document nodes also compare the `first_name`, `last_name`, `date_of_birth` and `country` the end',
    "  user submits with the session's `expected_details`; each difference adds a warning",
    '  (`name_mismatch`, `date_of_birth_mismatch`, `country_mismatch`).',
    '- In a workflow with a document node, `aml_screening` screens the name the sandbox document',
    '  "read" — the `firstName`/`lastName` typed on `submitDocument`, else `expected_details`, else',
    '  `Sandbox User` — not the `full_name` typed for AML (docs/aml.md, "What is screened"). The magic',
    '  names below then go on the document: `submitDocument(firstName: "Sandbox", lastName:',
    '  "Sanctioned")` declines whatever name `submitAmlData` types. Typed AML data that differs from',
    "  the document's (name, `date_of_birth`, `country` against the document's issuing country) is an",
    '  `aml_document_mismatch` warning. AML data sent before the document waits for it',
    '  (`result_code: awaiting_document`); a failed document leaves the typed data screened with a',
    '  `document_identity_unavailable` warning. Without a document node the typed `full_name` is',
    '  screened and compared with `expected_details`.',
    '',
  ];
  for (const nodeType of NODE_TYPES) {
    lines.push(...renderNode(nodeType));
  }
  return lines.join('\n');
}

function renderNode<T extends NodeType>(nodeType: T): string[] {
  const node = SANDBOX_CATALOGUE[nodeType] as SandboxNodeCatalogue<EffectOf<T>>;
  const summarise = SUMMARISE[nodeType] as (effect: EffectOf<T>) => string;
  const row = (value: string, outcome: SandboxOutcome<EffectOf<T>>): string =>
    `| ${value} | \`${outcome.status}\` | \`${outcome.resultCode}\` | ${renderWarnings(outcome)} | ${cell(summarise(outcome.effect))} | ${cell(outcome.description)} |`;
  const lines = [
    `## \`${nodeType}\` (provider \`${NODE_CATALOGUE[nodeType].sandboxProvider}\`)`,
    '',
    `Field \`${node.field}\`: ${MATCHING_TEXT[node.matching]}.`,
    '',
    '| Value | Node status | `result_code` | Warnings | Details | What it simulates |',
    '|---|---|---|---|---|---|',
    ...node.values.map((entry) => row(`\`${entry.value}\``, entry)),
    row(cell(node.otherwise.label), node.otherwise),
    '',
  ];
  if (nodeType === 'aml_screening') {
    lines.push(
      'In a workflow with a document node the field is the name the sandbox document read (see above).',
      '',
      "Node status is shown at the default threshold (80). The engine applies the workflow's own",
      'threshold: a score at or above it fails (and declines the session), a lower score with a hit',
      'asks for review, no hit passes. Hits on lists left out of `lists` are dropped, and `score` is',
      'the highest remaining hit score.',
      '',
    );
  }
  return lines;
}

function renderWarnings(outcome: SandboxOutcome<unknown>): string {
  if (outcome.warnings.length === 0) return '—';
  return outcome.warnings.map((warning) => `\`${warning.code}\``).join(', ');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
