import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckRunSchema } from '../../entities/check-run.entity.js';
import { AML_LISTS, type SanctionedEntity } from '../../src/engines/aml/entity.js';
import { createLiveAmlEngine } from '../../src/engines/aml/engine.js';
import { importFile } from '../../src/engines/aml/importers/index.js';
import { importEntities, latestImports } from '../../src/engines/aml/store.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';

const SCREEN_AML = /* GraphQL */ `
  mutation ($input: ScreenAmlInput!) {
    screenAml(input: $input) {
      amlId
      riskBand
      score
      checkedLists
      hits {
        entityId
        list
        matchedName
        name
        score
        matchedFields
        programs
        topics
        explanation {
          matchedNameKind
          method
          tokenMatches {
            queryToken
            listedToken
            kind
          }
          unmatchedListedTokens
          namePoints
          dateOfBirth {
            outcome
            points
          }
          country {
            outcome
            points
          }
          summary
        }
      }
    }
  }
`;

const fixture = (name: string) => new URL(`../fixtures/aml/${name}`, import.meta.url).pathname;

/** Imports the fixture lists: official OFAC, EU and UN files; PEP and adverse media from OpenSanctions. */
async function importFixtures(testApp: TestApp): Promise<void> {
  const em = testApp.app.orm.em.fork();
  await importEntities(em, importFile(fixture('ofac-sdn.xml')), { fileFormat: 'ofac_sdn_xml', checksum: 'fixture' });
  await importEntities(em, importFile(fixture('eu-consolidated.xml')), { fileFormat: 'eu_consolidated_xml', checksum: 'fixture' });
  await importEntities(em, importFile(fixture('un-consolidated.xml')), { fileFormat: 'un_consolidated_xml', checksum: 'fixture' });
  await importEntities(em, importFile(fixture('opensanctions.jsonl')), {
    fileFormat: 'opensanctions_jsonl',
    checksum: 'fixture',
    lists: ['PEP', 'ADVERSE_MEDIA'],
  });
}

describe('AML screening', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  const screenRest = (body: unknown, key: string | null = tenant.liveKey) => testApp.rest('POST', '/v1/aml', { key, body });

  beforeAll(async () => {
    testApp = await startTestApp();
    tenant = await testApp.tenant();
    await importFixtures(testApp);
  });
  afterAll(() => testApp.close());

  describe('POST /v1/aml', () => {
    it('given the exact listed name, DOB and country, when screened, then a 100 hit with every field matched', async () => {
      const response = await screenRest({ full_name: 'Borislav Kravetsky', date_of_birth: '1968-03-12', country: 'ru' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        aml_id: expect.any(String),
        risk_band: 5,
        score: 100,
        checked_lists: [...AML_LISTS],
        hits: [
          {
            entity_id: 'OFAC_SDN:90001',
            list: 'OFAC_SDN',
            matched_name: 'Borislav KRAVETSKY',
            name: 'Borislav KRAVETSKY',
            score: 100,
            matched_fields: ['name', 'date_of_birth', 'country'],
            programs: expect.any(Array),
            topics: expect.any(Array),
            explanation: {
              matched_name_kind: 'primary_name',
              query_form: 'borislav kravetsky',
              listed_form: 'borislav kravetsky',
              method: 'tokens',
              token_matches: [
                { query_token: 'borislav', listed_token: 'borislav', credit: 1, weight: 1, kind: 'exact' },
                { query_token: 'kravetsky', listed_token: 'kravetsky', credit: 1, weight: 1, kind: 'exact' },
              ],
              unmatched_query_tokens: [],
              unmatched_listed_tokens: [],
              name_factors: [],
              name_similarity: 1,
              name_points: 100,
              date_of_birth: { outcome: 'exact', points: 10, listed: ['1968-03-12'] },
              country: { outcome: 'match', points: 5, listed: expect.arrayContaining(['RU']) },
              summary: expect.stringContaining('date of birth exact +10; country match +5 = 100'),
            },
          },
        ],
      });
    });

    it('given the result, then it is stored as an aml check_run of the tenant', async () => {
      const response = await screenRest({ full_name: 'Borislav Kravetsky' });
      const run = await testApp.app.orm.em.fork().findOneOrFail(CheckRunSchema, { id: response.body.aml_id });
      expect(run).toMatchObject({ kind: 'aml', status: 'failed' });
      expect(run.tenant.id).toBe(tenant.id);
      expect(run.result).toEqual(response.body);
    });

    it.each([
      ['reordered tokens', 'KRAVETSKY, Borislav', 'OFAC_SDN:90001', 'Borislav KRAVETSKY'],
      ['an alias', 'Boris Kravetski', 'OFAC_SDN:90001', 'Boris KRAVETSKI'],
      ['Cyrillic script', 'Анатолий Петрович Зарембин', 'EU_CONSOLIDATED:700001', 'Anatoliy Petrovich Zarembin'],
      ['Greek script', 'Ιωάννης Καραμολέγκος', 'EU_CONSOLIDATED:700005', 'Ioannis Karamolegkos'],
      ['German umlaut spelling', 'Joerg Muensterberg', 'OFAC_SDN:90005', 'Jörg MÜNSTERBERG'],
      ['Han script', '王小明', 'PEP:os-fict-008', '王小明'],
    ])('given %s, when screened, then the entity is the top hit', async (_case, fullName, entityId, matchedName) => {
      const response = await screenRest({ full_name: fullName });
      expect(response.status).toBe(200);
      expect(response.body.hits[0]).toMatchObject({ entity_id: entityId, matched_name: matchedName });
      expect(response.body.score).toBeGreaterThanOrEqual(90);
      expect(response.body.score).toBe(response.body.hits[0].score);
    });

    it('given a date of birth years off the listed one, when screened, then the hit stays but below the decline threshold', async () => {
      const response = await screenRest({ full_name: 'Borislav Kravetsky', date_of_birth: '1990-01-01' });
      expect(response.status).toBe(200);
      expect(response.body.hits[0]).toMatchObject({ entity_id: 'OFAC_SDN:90001', score: 70, matched_fields: ['name'] });
      expect(response.body).toMatchObject({ score: 70, risk_band: 3 });
      // The explanation says why: the name is the listed one, the date of birth took 30 points.
      expect(response.body.hits[0].explanation).toMatchObject({
        name_points: 100,
        date_of_birth: { outcome: 'conflict', points: -30, listed: ['1968-03-12'] },
        country: { outcome: 'not_compared', points: 0 },
      });
    });

    it('given a name on no list, when screened, then score 0, no hits, risk band 1, every list checked', async () => {
      const response = await screenRest({ full_name: 'Ada Lovelace', date_of_birth: '1815-12-10', country: 'GB' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ aml_id: expect.any(String), risk_band: 1, hits: [], score: 0, checked_lists: [...AML_LISTS] });
    });

    it('given lists, when screened, then checked_lists is exactly those and hits come only from them', async () => {
      const response = await screenRest({ full_name: 'Anatoliy Petrovich Zarembin', lists: ['UN_SC', 'PEP'] });
      expect(response.status).toBe(200);
      expect(response.body.checked_lists).toEqual(['UN_SC', 'PEP']);
      expect(response.body.hits.map((hit: { entity_id: string }) => hit.entity_id)).toEqual(['PEP:os-fict-003']);
    });

    it('given no full_name, when screened, then 400 with a field error', async () => {
      const response = await screenRest({ date_of_birth: '1968-03-12' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'full_name', code: 'required' }] });
    });

    it.each([
      ['an impossible date', { full_name: 'X Y', date_of_birth: '1990-02-30' }, 'date_of_birth'],
      ['a day-first date', { full_name: 'X Y', date_of_birth: '12/03/1968' }, 'date_of_birth'],
      ['a three-letter country', { full_name: 'X Y', country: 'RUS' }, 'country'],
      ['an unknown list', { full_name: 'X Y', lists: ['INTERPOL'] }, 'lists[0]'],
      ['an empty list array', { full_name: 'X Y', lists: [] }, 'lists'],
      ['a blank name', { full_name: '   ' }, 'full_name'],
      ['a number as name', { full_name: 42 }, 'full_name'],
      ['an unknown field', { full_name: 'X Y', nationality: 'RU' }, 'nationality'],
    ])('given %s, when screened, then 400 naming the field', async (_case, body, field) => {
      const response = await screenRest(body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });

    it('given no API key, when screened, then 401', async () => {
      const response = await screenRest({ full_name: 'Borislav Kravetsky' }, null);
      expect(response.status).toBe(401);
    });
  });

  // docs/sandbox.md: with a sandbox key every check runs on the sandbox provider, never the live lists.
  describe('POST /v1/aml by environment', () => {
    it('given a live key and a listed name, when screened, then the stored lists answer and the check is kept as live', async () => {
      const response = await screenRest({ full_name: 'Tareq al-Zubaydawi', lists: ['OFAC_SDN'] }, tenant.liveKey);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ checked_lists: ['OFAC_SDN'], risk_band: 5 });
      expect(response.body.hits[0]).toMatchObject({ entity_id: 'OFAC_SDN:90003', list: 'OFAC_SDN' });
      const run = await testApp.app.orm.em.fork().findOneOrFail(CheckRunSchema, { id: response.body.aml_id });
      expect(run).toMatchObject({ kind: 'aml', environment: 'live', status: 'failed' });
    });

    it('given a sandbox key and a listed name, when screened, then no hit: the sandbox never screens the live lists', async () => {
      const response = await screenRest({ full_name: 'Tareq al-Zubaydawi', lists: ['OFAC_SDN'] }, tenant.sandboxKey);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ hits: [], score: 0, risk_band: 1, checked_lists: ['OFAC_SDN'] });
      const run = await testApp.app.orm.em.fork().findOneOrFail(CheckRunSchema, { id: response.body.aml_id });
      expect(run).toMatchObject({ kind: 'aml', environment: 'sandbox', status: 'passed' });
    });

    it('given a sandbox key and the magic name Sandbox Sanctioned, when screened, then the sandbox hit in the live hit shape', async () => {
      const response = await screenRest({ full_name: 'Sandbox Sanctioned' }, tenant.sandboxKey);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ score: 95, risk_band: 5 });
      expect(response.body.hits).toEqual([
        {
          entity_id: 'OFAC_SDN:sandbox-ofac-0001',
          list: 'OFAC_SDN',
          matched_name: 'SANDBOX SANCTIONED',
          name: 'SANDBOX SANCTIONED',
          score: 95,
          matched_fields: ['name'],
          programs: [],
          topics: ['sanction'],
          explanation: null,
        },
      ]);
      const run = await testApp.app.orm.em.fork().findOneOrFail(CheckRunSchema, { id: response.body.aml_id });
      expect(run).toMatchObject({ kind: 'aml', environment: 'sandbox', status: 'failed' });
    });

    it('given a sandbox key, the magic name and lists without its list, when screened, then no hit (as in a session)', async () => {
      const response = await screenRest({ full_name: 'Sandbox Sanctioned', lists: ['PEP'] }, tenant.sandboxKey);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ hits: [], score: 0, checked_lists: ['PEP'] });
    });
  });

  describe('GraphQL screenAml', () => {
    it('given an alias and lists, when screened, then the same result in camelCase', async () => {
      const { body } = await testApp.graphql(
        SCREEN_AML,
        { input: { fullName: 'Tareq al-Zubaydawi', lists: ['OFAC_SDN'] } },
        tenant.liveKey,
      );
      expect(body.errors).toBeUndefined();
      expect(body.data.screenAml).toMatchObject({ checkedLists: ['OFAC_SDN'], riskBand: 5 });
      expect(body.data.screenAml.hits[0]).toMatchObject({
        entityId: 'OFAC_SDN:90003',
        list: 'OFAC_SDN',
        matchedName: 'Tareq AL-ZUBAYDAWI',
        explanation: {
          matchedNameKind: 'alias',
          method: 'tokens',
          tokenMatches: [
            { queryToken: 'tareq', listedToken: 'tareq', kind: 'exact' },
            { queryToken: 'zubaydawi', listedToken: 'zubaydawi', kind: 'exact' },
          ],
          unmatchedListedTokens: [],
          namePoints: 100,
          dateOfBirth: { outcome: 'not_compared', points: 0 },
          country: { outcome: 'not_compared', points: 0 },
          summary: expect.stringContaining('alias "Tareq AL-ZUBAYDAWI"'),
        },
      });
    });

    it('given a bad date, when screened, then VALIDATION_FAILED with the field', async () => {
      const { body } = await testApp.graphql(SCREEN_AML, { input: { fullName: 'X Y', dateOfBirth: '1968-13-01' } }, tenant.liveKey);
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', fieldErrors: [{ field: 'dateOfBirth' }] });
    });

    it('given an unknown list, when screened, then the request is refused', async () => {
      const { body } = await testApp.graphql(SCREEN_AML, { input: { fullName: 'X Y', lists: ['INTERPOL'] } }, tenant.liveKey);
      expect(body.data ?? null).toBeNull();
      expect(body.errors?.length).toBeGreaterThan(0);
    });

    it('given no key, when screened, then UNAUTHENTICATED', async () => {
      const { body } = await testApp.graphql(SCREEN_AML, { input: { fullName: 'X Y' } }, null);
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('live aml_screening engine', () => {
    const context = { tenantId: 't', sessionId: 's', amlScoreThreshold: 80 };

    it("given the app's engine registry, then openkyc:aml_screen has a live engine", () => {
      expect(testApp.app.services.engines.live('openkyc:aml_screen')?.nodeType).toBe('aml_screening');
    });

    it.each([
      { name: 'Borislav Kravetsky', dob: '1968-03-12', threshold: 80, status: 'failed', code: 'sanctions_match' },
      { name: 'Borislav Kravetsky', dob: '1990-01-01', threshold: 80, status: 'review', code: 'possible_sanctions_match' },
      { name: 'Borislav Kravetsky', dob: '1990-01-01', threshold: 70, status: 'failed', code: 'sanctions_match' },
      { name: 'Marisol Echeverria Quintana', dob: '1969-05-01', threshold: 101, status: 'review', code: 'pep_match' },
      { name: 'Ada Lovelace', dob: '1815-12-10', threshold: 80, status: 'passed', code: 'clear' },
    ])('given $name born $dob at threshold $threshold, when run, then $status ($code)', async ({ name, dob, threshold, status, code }) => {
      const engine = createLiveAmlEngine({ em: () => testApp.app.orm.em.fork() });
      const result = await engine.run({ fullName: name, dateOfBirth: dob }, { ...context, amlScoreThreshold: threshold });
      expect(result).toMatchObject({ status, provider: 'openkyc:aml_screen', warnings: [] });
      expect(result.details).toMatchObject({ resultCode: code, checkedLists: [...AML_LISTS] });
    });

    it('given a hit, then details carry the sandbox hit shape', async () => {
      const engine = createLiveAmlEngine({ em: () => testApp.app.orm.em.fork() });
      const result = await engine.run({ fullName: 'Pak Chol Min', lists: ['UN_SC'] }, context);
      expect(result.details).toMatchObject({
        score: expect.any(Number),
        riskBand: expect.any(Number),
        checkedLists: ['UN_SC'],
        hits: [{ list: 'UN_SC', entryId: '6900001', category: 'sanctions', matchedName: 'PAK CHOL MIN', score: expect.any(Number) }],
      });
      // A reviewer of the session sees why it matched, as the standalone screen says.
      const [hit] = (result.details as { hits: Array<{ score: number; explanation?: Record<string, unknown> }> }).hits;
      expect(hit!.explanation).toMatchObject({ method: 'tokens', unmatchedQueryTokens: [], namePoints: hit!.score });
    });
  });

  describe('re-import', () => {
    it('given a new OFAC_SDN import, when screened, then the old entities are gone and the new one hits', async () => {
      const replacement: SanctionedEntity = {
        source_list: 'OFAC_SDN',
        source_id: '99001',
        kind: 'person',
        primary_name: 'Quentin Fabricated EXAMPLE',
        aliases: [],
        dates_of_birth: ['1977-07-07'],
        countries: ['MT'],
        programs: ['FICTION'],
        topics: ['sanction'],
      };
      const summary = await importEntities(testApp.app.orm.em.fork(), [replacement], { fileFormat: 'test', checksum: 'replacement' });
      expect(summary).toEqual({ lists: ['OFAC_SDN'], counts: { OFAC_SDN: 1 }, skipped: 0 });

      const old = await screenRest({ full_name: 'Borislav Kravetsky', lists: ['OFAC_SDN'] });
      expect(old.body).toMatchObject({ score: 0, hits: [] });
      const fresh = await screenRest({ full_name: 'Example Quentin Fabricated' });
      expect(fresh.body.hits).toEqual([
        expect.objectContaining({ entity_id: 'OFAC_SDN:99001', programs: ['FICTION'], topics: ['sanction'] }),
      ]);
      // Other lists are untouched.
      const eu = await screenRest({ full_name: 'Anatoliy Petrovich Zarembin', lists: ['EU_CONSOLIDATED'] });
      expect(eu.body.hits[0].entity_id).toBe('EU_CONSOLIDATED:700001');

      const imports = await latestImports(testApp.app.orm.em.fork());
      expect(imports.find((row) => row.source_list === 'OFAC_SDN')).toMatchObject({
        entity_count: 1,
        checksum: 'replacement',
        file_format: 'test',
      });
    });

    it('given an import that fails halfway, then the list keeps its previous entities', async () => {
      async function* broken(): AsyncGenerator<SanctionedEntity> {
        yield {
          source_list: 'UN_SC',
          source_id: 'x1',
          kind: 'person',
          primary_name: 'Half Written',
          aliases: [],
          dates_of_birth: [],
          countries: [],
          programs: [],
          topics: [],
        };
        throw new Error('file truncated');
      }
      await expect(importEntities(testApp.app.orm.em.fork(), broken(), { fileFormat: 'test', checksum: 'broken' })).rejects.toThrow(
        'file truncated',
      );
      const response = await screenRest({ full_name: 'Pak Chol Min', lists: ['UN_SC'] });
      expect(response.body.hits[0].entity_id).toBe('UN_SC:6900001');
    });
  });
});
