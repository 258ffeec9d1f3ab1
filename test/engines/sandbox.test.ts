import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { amlNodeStatus, normaliseName } from '../../src/domain/node-outcome.js';
import { decideVerdict } from '../../src/domain/verdict.js';
import { NODE_TYPES, type NodeResult, type NodeType } from '../../src/domain/types.js';
import { ApiError } from '../../src/shared/errors.js';
import { AML_LISTS } from '../../src/engines/details.js';
import type { NodeInputs } from '../../src/engines/inputs.js';
import {
  SANDBOX_CATALOGUE,
  SANDBOX_DOCS_PATH,
  checkSandboxInput,
  createSandboxEngines,
  findSandboxOutcome,
  renderSandboxDocs,
  sandboxEngines,
} from '../../src/engines/sandbox/index.js';
import type { EngineContext } from '../../src/engines/node-engine.js';
import { keptResult, storedDetails } from '../../src/engines/stored-details.js';
import { BASE_INPUTS, CATALOGUE_CASES, CONTEXT, JPEG, NOW, catalogueOf, inputWith } from './sandbox-cases.js';
import { BUILT_IN_WORKFLOWS } from '../../src/workflows/built-in.js';
import { NODE_CATALOGUE } from '../../src/domain/workflow.js';

/** Operations under test: `engine.run(input, context)` of each sandbox engine, and `renderSandboxDocs()`. */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const engines = createSandboxEngines({ now: () => NOW });

function run<T extends NodeType>(nodeType: T, input: NodeInputs[T], context: EngineContext = CONTEXT) {
  return engines[nodeType].run(input, context);
}

describe('sandbox engines', () => {
  describe('registry', () => {
    it('given the registry, then it has one engine per node type with the catalogue provider name', () => {
      expect(Object.keys(sandboxEngines).sort()).toEqual([...NODE_TYPES].sort());
      for (const nodeType of NODE_TYPES) {
        expect(sandboxEngines[nodeType].nodeType).toBe(nodeType);
        expect(sandboxEngines[nodeType].provider).toBe(NODE_CATALOGUE[nodeType].sandboxProvider);
        expect(sandboxEngines[nodeType].provider).toMatch(/^sandbox:[a-z_]+$/);
      }
    });

    it('given the provider names the brief promises, then they are used', () => {
      expect(
        Object.values(sandboxEngines)
          .map((engine) => engine.provider)
          .sort(),
      ).toEqual(['sandbox:aml_screen', 'sandbox:document', 'sandbox:face_match', 'sandbox:poa', 'sandbox:registry', 'sandbox:sms_otp']);
    });
  });

  describe.each(CATALOGUE_CASES)('given $nodeType with $value', ({ nodeType, value, outcome }) => {
    it(`when run, then status ${outcome.status}, result_code ${outcome.resultCode} and the catalogue warnings`, async () => {
      const result = await run(nodeType, inputWith(nodeType, value));
      expect(result.status).toBe(outcome.status);
      expect(result.provider).toBe(NODE_CATALOGUE[nodeType].sandboxProvider);
      // Moved engines return camelCase and unmoved ones snake_case; both are kept as snake_case.
      expect(storedDetails(result.details).result_code).toBe(outcome.resultCode);
      expect(result.warnings).toEqual(outcome.warnings);
    });

    it('when run twice, then the results are identical and JSON-serialisable', async () => {
      const first = await run(nodeType, inputWith(nodeType, value));
      const second = await run(nodeType, inputWith(nodeType, value));
      expect(second).toEqual(first);
      expect(JSON.parse(JSON.stringify(first))).toEqual(first);
    });
  });

  describe.each(NODE_TYPES)('given node type %s', (nodeType) => {
    it('then the catalogue reaches passed, failed, and review or passed-with-warning', () => {
      const node = catalogueOf(nodeType);
      const outcomes = [node.otherwise, ...node.values];
      expect(outcomes.some((o) => o.status === 'passed' && o.warnings.length === 0)).toBe(true);
      expect(outcomes.some((o) => o.status === 'failed')).toBe(true);
      expect(outcomes.some((o) => o.status === 'review' || (o.status === 'passed' && o.warnings.length > 0))).toBe(true);
    });

    it('then catalogue values are unique and every description is filled in', () => {
      const node = catalogueOf(nodeType);
      const values = node.values.map((entry) => entry.value);
      expect(new Set(values).size).toBe(values.length);
      for (const entry of [node.otherwise, ...node.values]) expect(entry.description.length).toBeGreaterThan(10);
    });
  });

  describe('unknown tokens', () => {
    const TOKEN_NODES = NODE_TYPES.filter((nodeType) => catalogueOf(nodeType).matching === 'token');

    it('given the token node types, then they are the four image inputs', () => {
      expect(TOKEN_NODES).toEqual(['document_verification', 'biometric_kyc', 'proof_of_address']);
    });

    it.each(TOKEN_NODES)('given %s with a misspelt token, when run, then it throws validation_failed', async (nodeType) => {
      const promise = run(nodeType, inputWith(nodeType, 'sandbox:expird'));
      await expect(promise).rejects.toBeInstanceOf(ApiError);
      await expect(promise).rejects.toMatchObject({
        code: 'validation_failed',
        fieldErrors: [{ field: catalogueOf(nodeType).inputField, code: 'unknown_sandbox_token' }],
      });
    });

    it.each(TOKEN_NODES)('given %s with a misspelt token, when checked, then one field error lists the valid tokens', (nodeType) => {
      const errors = checkSandboxInput(nodeType, inputWith(nodeType, 'sandbox:nope'));
      expect(errors).toHaveLength(1);
      expect(errors[0].message).toContain(catalogueOf(nodeType).values[0].value);
    });

    it.each(NODE_TYPES)('given %s with its happy input, when checked, then there is no error', (nodeType) => {
      expect(checkSandboxInput(nodeType, BASE_INPUTS[nodeType])).toEqual([]);
    });

    it('given a non-object or a missing field, when checked, then validation is left to the schema', () => {
      expect(checkSandboxInput('biometric_kyc', null)).toEqual([]);
      expect(checkSandboxInput('biometric_kyc', 'x')).toEqual([]);
      expect(checkSandboxInput('biometric_kyc', {})).toEqual([]);
    });

    it('given a sandbox-looking AML name, then it is a plain name, not a refused token', () => {
      expect(checkSandboxInput('aml_screening', { fullName: 'sandbox:whatever' })).toEqual([]);
      expect(findSandboxOutcome(SANDBOX_CATALOGUE.aml_screening, 'sandbox:whatever')).toMatchObject({ value: null });
    });
  });

  describe('document_verification', () => {
    it('given a data URI, when run, then the details have the spec shape with NFC skipped', async () => {
      const result = await run('document_verification', BASE_INPUTS.document_verification);
      expect(result.details).toEqual({
        resultCode: 'clear',
        documentType: 'PASSPORT',
        issuingCountry: 'FR',
        checks: { documentAuthentic: 'passed', mrzMatch: 'passed', expiryCheck: 'passed', nfcSignature: 'skipped' },
        extracted: {
          firstName: 'Sandbox',
          lastName: 'User',
          dateOfBirth: '1990-01-01',
          nationality: 'FR',
          documentNumber: 'SBX000000',
          expiryDate: '2030-06-14',
          nationalityCode: null,
          issuingState: null,
          sex: null,
          documentCode: null,
          mrzFormat: null,
        },
      });
    });

    it('given enable_nfc, when run, then nfc_signature passed', async () => {
      const result = await run('document_verification', { ...BASE_INPUTS.document_verification, enableNfc: true });
      expect(result.details.checks).toMatchObject({ nfcSignature: 'passed' });
    });

    it('given sandbox:nfc_invalid with enable_nfc, when run, then the override wins', async () => {
      const input = { ...inputWith('document_verification', 'sandbox:nfc_invalid'), enableNfc: true };
      expect((await run('document_verification', input)).details.checks).toMatchObject({ nfcSignature: 'failed' });
    });

    it('given sandbox:expired, when run, then the expiry date is in the past and only expiry_check failed', async () => {
      const result = await run('document_verification', inputWith('document_verification', 'sandbox:expired'));
      expect(result.details).toMatchObject({
        checks: { documentAuthentic: 'passed', mrzMatch: 'passed', expiryCheck: 'failed' },
        extracted: { expiryDate: '2024-06-15' },
      });
    });

    it('given expected_details and no typed names, when run, then the sandbox reads the expected ones and raises nothing', async () => {
      const context = {
        ...CONTEXT,
        expectedDetails: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1815-12-10' },
      };
      const result = await run('document_verification', BASE_INPUTS.document_verification, context);
      expect(result.warnings).toEqual([]);
      expect(result.details.extracted).toMatchObject({
        firstName: 'Ada',
        lastName: 'Lovelace',
        dateOfBirth: '1815-12-10',
      });
    });

    it('given typed details that differ from expected_details, when run, then one warning per differing field', async () => {
      const context = {
        ...CONTEXT,
        expectedDetails: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1815-12-10', country: 'GB' },
      };
      const input = {
        ...BASE_INPUTS.document_verification,
        firstName: 'ADA',
        lastName: 'Byron',
        dateOfBirth: '1815-12-11',
      };
      const result = await run('document_verification', input, context);
      expect(result.status).toBe('passed');
      expect(result.warnings.map((w) => [w.code, w.field])).toEqual([
        ['name_mismatch', 'last_name'],
        ['date_of_birth_mismatch', 'date_of_birth'],
        ['country_mismatch', 'country'],
      ]);
    });

    it('given names differing only by accents and case, when run, then no warning', async () => {
      const context = { ...CONTEXT, expectedDetails: { first_name: 'Zoé', last_name: "O'Brien" } };
      const input = { ...BASE_INPUTS.document_verification, firstName: 'ZOE', lastName: "o'brien " };
      expect((await run('document_verification', input, context)).warnings).toEqual([]);
    });

    it('given a magic warning and a mismatch, when run, then both warnings are listed', async () => {
      const context = { ...CONTEXT, expectedDetails: { last_name: 'Lovelace' } };
      const input = { ...inputWith('document_verification', 'sandbox:low_quality'), lastName: 'Byron' };
      const result = await run('document_verification', input, context);
      expect(result.warnings.map((w) => w.code)).toEqual(['image_quality_low', 'name_mismatch']);
    });
  });

  describe('biometric_kyc', () => {
    it('given a data URI, when run, then liveness and face match passed with a high similarity', async () => {
      expect((await run('biometric_kyc', BASE_INPUTS.biometric_kyc)).details).toEqual({
        resultCode: 'clear',
        checks: { liveness: 'passed', faceMatch: 'passed' },
        similarity: 0.94,
      });
    });

    it('given sandbox:spoof, when run, then liveness failed', async () => {
      const result = await run('biometric_kyc', { selfie: 'sandbox:spoof' });
      expect(result.status).toBe('failed');
      expect(result.details.checks).toEqual({ liveness: 'failed', faceMatch: 'passed' });
    });
  });

  describe('aml_screening', () => {
    it('given an ordinary name, when run, then score 0, band 1, no hits, every list checked', async () => {
      const result = await run('aml_screening', BASE_INPUTS.aml_screening);
      expect(result.status).toBe('passed');
      expect(result.details).toEqual({
        resultCode: 'clear',
        score: 0,
        riskBand: 1,
        hits: [],
        checkedLists: [...AML_LISTS],
        subject: { fullName: BASE_INPUTS.aml_screening.fullName },
      });
    });

    it('given Sandbox Sanctioned, when run, then score 95, band 5, one OFAC_SDN hit, failed', async () => {
      const result = await run('aml_screening', { fullName: 'Sandbox Sanctioned' });
      expect(result.status).toBe('failed');
      expect(result.details).toMatchObject({ score: 95, riskBand: 5, resultCode: 'sanctions_match' });
      expect(result.details.hits).toEqual([expect.objectContaining({ list: 'OFAC_SDN', category: 'sanctions', score: 95 })]);
    });

    it('given Sandbox Pep, when run, then score 60, one PEP hit, review', async () => {
      const result = await run('aml_screening', { fullName: 'Sandbox Pep' });
      expect(result.status).toBe('review');
      expect(result.details).toMatchObject({ score: 60, riskBand: 2 });
      expect(result.details.hits).toEqual([expect.objectContaining({ list: 'PEP', category: 'pep' })]);
    });

    it('given odd case, accents and spacing, when run, then the magic name still matches', async () => {
      const result = await run('aml_screening', { fullName: '  sandbox   PÉP ' });
      expect(result.details.score).toBe(60);
    });

    it('given lists that leave out the hit list, when run, then the hit is dropped and the result is clear', async () => {
      const result = await run('aml_screening', { fullName: 'Sandbox Sanctioned', lists: ['PEP', 'UN_SC'] });
      expect(result.status).toBe('passed');
      expect(result.details).toEqual({
        resultCode: 'clear',
        score: 0,
        riskBand: 1,
        hits: [],
        checkedLists: ['PEP', 'UN_SC'],
        subject: { fullName: 'Sandbox Sanctioned' },
      });
    });

    it('given duplicated lists, when run, then checked_lists names each list once', async () => {
      const result = await run('aml_screening', { fullName: 'x', lists: ['PEP', 'PEP'] });
      expect(result.details.checkedLists).toEqual(['PEP']);
    });

    it.each([
      { name: 'Sandbox Pep', threshold: 60, status: 'failed' },
      { name: 'Sandbox Pep', threshold: 61, status: 'review' },
      { name: 'Sandbox Borderline', threshold: 80, status: 'review' },
      { name: 'Sandbox Borderline', threshold: 79, status: 'failed' },
      { name: 'Sandbox Sanctioned', threshold: 95, status: 'failed' },
      { name: 'Sandbox Sanctioned', threshold: 96, status: 'review' },
      { name: 'Ada Lovelace', threshold: 0, status: 'failed' },
    ])('given $name and a workflow threshold of $threshold, when run, then $status', async ({ name, threshold, status }) => {
      const result = await run('aml_screening', { fullName: name }, { ...CONTEXT, amlScoreThreshold: threshold });
      expect(result.status).toBe(status);
    });

    it('given the catalogue status column, then it is what amlNodeStatus gives at the default threshold', () => {
      for (const entry of [SANDBOX_CATALOGUE.aml_screening.otherwise, ...SANDBOX_CATALOGUE.aml_screening.values]) {
        const score = Math.max(0, ...entry.effect.hits.map((hit) => hit.score));
        expect(amlNodeStatus(score, entry.effect.hits.length, 80)).toBe(entry.status);
      }
    });
  });

  describe('phone_verification', () => {
    it.each([
      ['000000', 'passed', 'passed'],
      ['111111', 'failed', 'failed'],
      ['222222', 'review', 'passed'],
      ['123456', 'failed', 'failed'],
    ])('given code %s at confirmation, when run, then %s with codeMatch %s', async (code, status, codeMatch) => {
      const result = await run('phone_verification', { phone: '+33612345678', code });
      expect(result.status).toBe(status);
      expect(result.details).toMatchObject({ phone: '+33612345678', checks: { codeMatch } });
    });
  });

  describe('proof_of_address', () => {
    it('given a data URI and an expected name, when run, then the bill is addressed to that name and fresh', async () => {
      const result = await run('proof_of_address', { documentImage: JPEG, expectedName: 'Ada Lovelace' });
      expect(result).toMatchObject({ status: 'passed', warnings: [] });
      expect(result.details).toEqual({
        resultCode: 'clear',
        extracted: {
          name: 'Ada Lovelace',
          address: '1 Sandbox Street, 75001 Paris',
          issuer: 'Sandbox Energy',
          issuedAt: '2025-06-12',
        },
        checks: { nameMatch: 'passed', geocode: 'passed', freshness: 'passed', tamperScore: 0.04 },
      });
    });

    it('given no expected name, when run, then name_match is skipped', async () => {
      expect((await run('proof_of_address', { documentImage: JPEG })).details.checks).toMatchObject({
        nameMatch: 'skipped',
      });
    });

    it('given max_age_days 1, when run on a data URI, then the bill is still fresh', async () => {
      const result = await run('proof_of_address', { documentImage: JPEG, maxAgeDays: 1 });
      expect(result.details).toMatchObject({ extracted: { issuedAt: '2025-06-14' }, checks: { freshness: 'passed' } });
    });

    it('given sandbox:name_mismatch, when run, then passed with a name_mismatch warning and another addressee', async () => {
      const result = await run('proof_of_address', {
        documentImage: 'sandbox:name_mismatch',
        expectedName: 'Ada Lovelace',
      });
      expect(result.status).toBe('passed');
      expect(result.warnings.map((w) => w.code)).toEqual(['name_mismatch']);
      expect(result.details).toMatchObject({ extracted: { name: 'Jordan Sample' }, checks: { nameMatch: 'warning' } });
    });

    it.each([
      [undefined, '2025-02-15'],
      [30, '2025-04-16'],
    ])('given sandbox:too_old and max_age_days %s, when run, then issued 30 days past the limit', async (maxAge, issuedAt) => {
      const result = await run('proof_of_address', { documentImage: 'sandbox:too_old', maxAgeDays: maxAge });
      expect(result.status).toBe('failed');
      expect(result.details).toMatchObject({ extracted: { issuedAt }, checks: { freshness: 'failed' } });
    });
  });

  describe('business_registry', () => {
    it('given an ordinary number, when run, then an active company under the declared name', async () => {
      const result = await run('business_registry', BASE_INPUTS.business_registry);
      expect(result.details).toEqual({
        resultCode: 'clear',
        company: {
          name: 'Acme SAS',
          registrationNumber: '552100554',
          country: 'FR',
          status: 'active',
          incorporatedOn: '2015-03-02',
        },
        checks: { registryFound: 'passed', companyActive: 'passed', nameMatch: 'passed' },
      });
    });

    it('given 00000000, when run, then failed with no company', async () => {
      const result = await run('business_registry', inputWith('business_registry', '00000000'));
      expect(result.status).toBe('failed');
      expect(result.details.company).toBeNull();
    });

    it('given 22222222, when run, then the registered name differs and a warning says so', async () => {
      const result = await run('business_registry', inputWith('business_registry', '22222222'));
      expect(result.details.company).toMatchObject({ name: 'Sandbox Holdings Limited' });
      expect(result.warnings).toEqual([expect.objectContaining({ code: 'name_mismatch', field: 'company_name' })]);
    });
  });

  describe('isolation', () => {
    it('given a result, when its warnings are mutated, then the catalogue is unchanged', async () => {
      const result = await run('proof_of_address', { documentImage: 'sandbox:name_mismatch' });
      result.warnings[0].message = 'changed';
      expect(SANDBOX_CATALOGUE.proof_of_address.values[0].warnings[0].message).not.toBe('changed');
    });

    it('given an AML result, when its hits are mutated, then the catalogue is unchanged', async () => {
      const result = await run('aml_screening', { fullName: 'Sandbox Pep' });
      (result.details.hits as Array<{ score: number }>)[0].score = 1;
      const pep = SANDBOX_CATALOGUE.aml_screening.values.find((entry) => entry.value === 'Sandbox Pep');
      expect(pep?.effect.hits[0].score).toBe(60);
    });

    it('given names, then normaliseName folds case, accents and spaces', () => {
      expect(normaliseName('  Ádá   LOVELACE ')).toBe('ada lovelace');
    });
  });

  describe('end to end with the verdict', () => {
    const workflow = BUILT_IN_WORKFLOWS.find((candidate) => candidate.id === 'standard_kyc');
    if (workflow === undefined) throw new Error('standard_kyc missing');

    async function decide(overrides: Partial<NodeInputs>) {
      const inputs: NodeInputs = { ...BASE_INPUTS, ...overrides };
      const nodeResults: Partial<Record<NodeType, NodeResult>> = {};
      for (const node of workflow!.nodes) {
        const produced = await engines[node.type].run(inputs[node.type] as never, CONTEXT);
        // A session keeps the engine's details in the spec's snake_case (submit.ts), which the verdict reads.
        nodeResults[node.type] = { ...keptResult(produced), required: node.required };
      }
      const amlScore = nodeResults.aml_screening?.details.score as number;
      return decideVerdict({ workflow: workflow!, nodeResults, listHits: [], amlScore, sessionWarnings: [] });
    }

    it('given happy inputs, when decided, then approved at the standard level', async () => {
      expect(await decide({})).toMatchObject({ status: 'approved', complianceLevel: 'standard' });
    });

    it('given an expired document, when decided, then declined gated by the document', async () => {
      const verdict = await decide({ document_verification: inputWith('document_verification', 'sandbox:expired') });
      expect(verdict).toMatchObject({ status: 'declined', gatingNode: 'document_verification' });
    });

    it('given a sanctioned name, when decided, then declined with the AML score reason', async () => {
      const verdict = await decide({ aml_screening: { fullName: 'Sandbox Sanctioned' } });
      expect(verdict.status).toBe('declined');
      expect(verdict.reasons.map((reason) => reason.code)).toContain('aml_score_at_or_above_threshold');
    });

    it('given a PEP, when decided, then in_review gated by AML', async () => {
      expect(await decide({ aml_screening: { fullName: 'Sandbox Pep' } })).toMatchObject({
        status: 'in_review',
        gatingNode: 'aml_screening',
      });
    });

    it('given a wrong code on the optional phone node, when decided, then still approved', async () => {
      const verdict = await decide({ phone_verification: { phone: '+33612345678', code: '111111' } });
      expect(verdict.status).toBe('approved');
      expect(verdict.reasons.map((reason) => reason.code)).toEqual(['optional_node_failed']);
    });
  });

  describe('docs/sandbox.md', () => {
    it('given the catalogue, then the committed docs equal the generated text (run scripts/generate-sandbox-docs.ts)', () => {
      const committed = readFileSync(resolve(ROOT, SANDBOX_DOCS_PATH), 'utf8');
      expect(committed).toBe(renderSandboxDocs());
    });

    it.each(CATALOGUE_CASES.filter((c) => c.outcome !== catalogueOf(c.nodeType).otherwise))(
      'given $nodeType magic value, then the docs list it with its status',
      ({ nodeType, outcome }) => {
        const value = (outcome as { value: string }).value;
        expect(renderSandboxDocs()).toContain(`| \`${value}\` | \`${outcome.status}\` | \`${outcome.resultCode}\` |`);
        expect(renderSandboxDocs()).toContain(`## \`${nodeType}\``);
      },
    );
  });
});
