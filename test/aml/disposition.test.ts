/**
 * AML hit disposition (issue 25.3): each hit of a session shows its listed entity; a reviewer marks
 * it true match or false positive with a reason (GraphQL and REST, audited); a false positive is
 * remembered for the person and the entity, so a re-screen (a new session, ongoing monitoring)
 * does not raise it again until the entity's record or the person's screened data changes.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorAfterImport } from '../../src/sessions/aml-monitoring.js';
import type { SanctionedEntity } from '../../src/engines/aml/entity.js';
import { upsertEntities } from '../../src/engines/aml/store.js';
import { gql, tokenOf } from '../sessions/support.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { codeOf, consoleGql, makeOperator, operatorAuditOf, signIn, type ConsoleCredential } from '../console/support.js';
import { camelCaseKeys } from '../support/stored-keys.js';

const DISPOSE = /* GraphQL */ `
  mutation ($sessionId: String!, $entityId: String!, $disposition: AmlHitDisposition!, $reason: String!) {
    disposeAmlHit(sessionId: $sessionId, entityId: $entityId, disposition: $disposition, reason: $reason) {
      id
      disposition
      reason
      actor
      actorName
      entityChanged
    }
  }
`;
const HITS = /* GraphQL */ `
  query ($id: String!) {
    session(id: $id) {
      status
      amlHits {
        entityId
        list
        score
        foundBy
        suppressed
        entity {
          primaryName
          datesOfBirth
          countries
          programs
        }
        disposition {
          disposition
          reason
          actorName
          entityChanged
        }
      }
    }
  }
`;
const REVIEW = /* GraphQL */ `
  mutation ($id: String!, $decision: ReviewDecision!, $reason: String) {
    reviewSession(id: $id, decision: $decision, reason: $reason) {
      status
    }
  }
`;
const SUBMIT_AML = /* GraphQL */ `
  mutation ($sessionId: String!, $input: AmlStepInput!) {
    submitAmlData(sessionId: $sessionId, input: $input) {
      status
    }
  }
`;
/** The sandbox catalogue's sanctions hit below the default threshold (review). */
const BORDERLINE_ENTITY = 'UN_SC:sandbox-unsc-0001';

let testApp: TestApp;
let tenant: TestTenant;
let reviewer: ConsoleCredential;

/** An aml_only session of `key` screened for `input`; returns its id and status. */
async function screened(key: string, input: Record<string, string>): Promise<{ id: string; status: string }> {
  const created = await testApp.rest('POST', '/v1/sessions', {
    key,
    body: { workflow_id: 'aml_only', vendor_data: `disposition-${randomBytes(4).toString('hex')}` },
  });
  expect(created.status).toBe(201);
  const submitted = await gql(testApp, { sessionToken: tokenOf(created.body.url) }, SUBMIT_AML, {
    sessionId: created.body.session_id,
    input,
  });
  expect(submitted.body.errors, JSON.stringify(submitted.body)).toBeUndefined();
  return { id: created.body.session_id, status: submitted.body.data.submitAmlData.status };
}

/** A name no fixture or other test uses (both words random), so the shared list tables cannot interfere. */
function uniqueName(): string {
  const word = () => {
    const letters = [...randomBytes(9)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
    return `${letters[0]!.toUpperCase()}${letters.slice(1)}`;
  };
  return `${word()} ${word()}`;
}

beforeAll(async () => {
  testApp = await startTestApp();
  tenant = await testApp.tenant();
  reviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer', 'Grace Hopper'));
}, 60_000);
afterAll(() => testApp?.close());

describe('marking a hit', () => {
  it('given an in-review sandbox session, when a reviewer marks its sanctions hit true match, then the hit shows it with the name, the operator audit has it, approving is refused and declining works', async () => {
    const session = await screened(tenant.sandboxKey, { fullName: 'Sandbox Borderline', country: 'GB' });
    expect(session.status).toBe('in_review');

    const marked = await consoleGql(testApp, reviewer, DISPOSE, {
      sessionId: session.id,
      entityId: BORDERLINE_ENTITY,
      disposition: 'true_match',
      reason: 'Same person: date of birth and passport match the UN listing.',
    });
    expect(marked.body.errors).toBeUndefined();
    expect(marked.body.data.disposeAmlHit).toMatchObject({ disposition: 'true_match', actorName: 'Grace Hopper', entityChanged: false });

    const hits = (await consoleGql(testApp, reviewer, HITS, { id: session.id })).body.data.session.amlHits;
    expect(hits).toEqual([
      expect.objectContaining({
        entityId: BORDERLINE_ENTITY,
        list: 'UN_SC',
        foundBy: 'screening',
        suppressed: false,
        entity: null, // a sandbox hit comes from the magic name, no imported list holds it
        disposition: expect.objectContaining({ disposition: 'true_match', actorName: 'Grace Hopper' }),
      }),
    ]);
    const audit = await operatorAuditOf(testApp, session.id);
    expect(audit).toContainEqual({ action: 'aml_hit.dispositioned', actor_name: 'Grace Hopper', environment: 'sandbox' });

    const approve = await consoleGql(testApp, reviewer, REVIEW, { id: session.id, decision: 'approved', reason: 'looks fine' });
    expect(codeOf(approve)).toBe('CONFLICT');
    const decline = await consoleGql(testApp, reviewer, REVIEW, { id: session.id, decision: 'declined', reason: 'sanctioned' });
    expect(decline.body.data.reviewSession.status).toBe('declined');
  });

  it('given a true match changed to false positive by the same session, then approving works again (the latest disposition counts)', async () => {
    const session = await screened(tenant.sandboxKey, { fullName: 'Sandbox Borderline', country: 'FR' });
    for (const disposition of ['true_match', 'false_positive'])
      expect(
        codeOf(
          await consoleGql(testApp, reviewer, DISPOSE, { sessionId: session.id, entityId: BORDERLINE_ENTITY, disposition, reason: 'x' }),
        ),
      ).toBeNull();
    const approve = await consoleGql(testApp, reviewer, REVIEW, { id: session.id, decision: 'approved', reason: 'checked' });
    expect(approve.body.data.reviewSession.status).toBe('approved');
  });

  it('given bad input, then each is a coded error and nothing is recorded', async () => {
    const session = await screened(tenant.sandboxKey, { fullName: 'Sandbox Borderline', country: 'DE' });
    const path = `/v1/sessions/${session.id}/aml-hits/${encodeURIComponent(BORDERLINE_ENTITY)}/disposition`;
    const post = (body: unknown, at = path) => testApp.rest('POST', at, { key: tenant.sandboxKey, body });

    const badDisposition = await post({ disposition: 'maybe', reason: 'x' });
    const noReason = await post({ disposition: 'false_positive', reason: '   ' });
    const longReason = await post({ disposition: 'false_positive', reason: 'x'.repeat(2001) });
    const extraField = await post({ disposition: 'false_positive', reason: 'x', score: 1 });
    const notAHit = await post(
      { disposition: 'false_positive', reason: 'x' },
      `/v1/sessions/${session.id}/aml-hits/OFAC_SDN:nope/disposition`,
    );
    const notASession = await post({ disposition: 'false_positive', reason: 'x' }, `/v1/sessions/not-a-uuid/aml-hits/X:1/disposition`);
    const gqlEmpty = await consoleGql(testApp, reviewer, DISPOSE, {
      sessionId: session.id,
      entityId: BORDERLINE_ENTITY,
      disposition: 'false_positive',
      reason: '',
    });
    const gqlEnum = await consoleGql(testApp, reviewer, DISPOSE, {
      sessionId: session.id,
      entityId: BORDERLINE_ENTITY,
      disposition: 'MAYBE',
      reason: 'x',
    });

    for (const answer of [badDisposition, noReason, longReason, extraField]) {
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
    }
    expect(notAHit.status).toBe(400);
    expect(notAHit.body.errors[0].field).toBe('entity_id');
    expect(notASession.status).toBe(404);
    expect(codeOf(gqlEmpty)).toBe('VALIDATION_FAILED');
    expect(codeOf(gqlEnum)).not.toBeNull();
    const [rows] = await testApp.app.orm.em
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from aml_hit_disposition where session_id = ?', [session.id]);
    expect(Number(rows!.n)).toBe(0);
  });

  it('given a session of one tenant and environment, then the other environment, another tenant and a viewer cannot mark its hits; an API key of its own scope can, audited with the key', async () => {
    const session = await screened(tenant.sandboxKey, { fullName: 'Sandbox Borderline', country: 'IT' });
    const path = `/v1/sessions/${session.id}/aml-hits/${encodeURIComponent(BORDERLINE_ENTITY)}/disposition`;
    const body = { disposition: 'false_positive', reason: 'Different person.' };
    const stranger = await testApp.tenant();
    const liveReviewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'reviewer'), 'live');
    const viewer = await signIn(testApp, await makeOperator(testApp, tenant.id, 'viewer'));
    const strangerOperator = await signIn(testApp, await makeOperator(testApp, stranger.id, 'admin'));
    const variables = { sessionId: session.id, entityId: BORDERLINE_ENTITY, disposition: 'false_positive', reason: 'x' };

    const byLiveKey = await testApp.rest('POST', path, { key: tenant.liveKey, body });
    const byStrangerKey = await testApp.rest('POST', path, { key: stranger.sandboxKey, body });
    const byLiveOperator = await consoleGql(testApp, liveReviewer, DISPOSE, variables);
    const byStranger = await consoleGql(testApp, strangerOperator, DISPOSE, variables);
    const byViewer = await consoleGql(testApp, viewer, DISPOSE, variables);
    const readByLiveKey = await testApp.rest('GET', `/v1/sessions/${session.id}/aml-hits`, { key: tenant.liveKey });

    expect([byLiveKey.status, byStrangerKey.status, readByLiveKey.status]).toEqual([404, 404, 404]);
    expect(codeOf(byLiveOperator)).toBe('NOT_FOUND');
    expect(codeOf(byStranger)).toBe('NOT_FOUND');
    expect(codeOf(byViewer)).toBe('FORBIDDEN');

    const byOwnKey = await testApp.rest('POST', path, { key: tenant.sandboxKey, body });
    expect(byOwnKey.status).toBe(200);
    expect(byOwnKey.body).toMatchObject({ disposition: 'false_positive', actor_name: null, entity_id: BORDERLINE_ENTITY });
    expect(byOwnKey.body.actor).toMatch(/^api_key:/);
    const read = await testApp.rest('GET', `/v1/sessions/${session.id}/aml-hits`, { key: tenant.sandboxKey });
    expect(read.status).toBe(200);
    expect(read.body.data[0]).toMatchObject({ entity_id: BORDERLINE_ENTITY, disposition: { disposition: 'false_positive' } });
  });
});

describe('a false positive is remembered for the person and the entity', () => {
  /** A listed OFAC person of that name, born 1970. */
  const listed = (name: string, programs = ['TEST']): SanctionedEntity => ({
    source_list: 'OFAC_SDN',
    source_id: `disposition-${name.replace(/\W/g, '')}`,
    kind: 'person',
    primary_name: name,
    aliases: [],
    dates_of_birth: ['1970-03-04'],
    countries: ['GB'],
    programs,
    topics: ['sanction'],
  });

  it('given a false positive, then a new session of the same person is not stopped by it, one with other data is; monitoring leaves it alone until the entity changes, and then raises it again', async () => {
    const name = uniqueName();
    const entity = listed(name);
    const entityId = `OFAC_SDN:${entity.source_id}`;
    await upsertEntities(testApp.app.orm.em.fork(), [entity]);
    const person = { fullName: name, country: 'GB', dateOfBirth: '1985-06-07' };

    // Given: the first session of the person has the hit, and a reviewer marks it false positive (REST, live key).
    const first = await screened(tenant.liveKey, person);
    expect(first.status).not.toBe('approved');
    const marked = await testApp.rest('POST', `/v1/sessions/${first.id}/aml-hits/${encodeURIComponent(entityId)}/disposition`, {
      key: tenant.liveKey,
      body: { disposition: 'false_positive', reason: 'Listed person born 1970; the applicant in 1985.' },
    });
    expect(marked.status).toBe(200);
    // The session keeps the live engine's hit and explanation in the spec's snake_case (one flip, where the result is kept).
    const firstAml = (await testApp.rest('GET', `/v1/sessions/${first.id}/decision`, { key: tenant.liveKey })).body.node_results
      .aml_screening;
    expect(firstAml.details).toMatchObject({
      result_code: expect.any(String),
      risk_band: expect.any(Number),
      checked_lists: expect.any(Array),
      subject: { full_name: name, date_of_birth: '1985-06-07', country: 'GB' },
      hits: [
        {
          list: 'OFAC_SDN',
          entry_id: entity.source_id,
          matched_name: name,
          explanation: expect.objectContaining({ matched_name_kind: 'primary_name', name_points: 100, unmatched_query_tokens: [] }),
        },
      ],
    });
    expect(camelCaseKeys(firstAml.details)).toEqual([]);
    const firstHits = await testApp.rest('GET', `/v1/sessions/${first.id}/aml-hits`, { key: tenant.liveKey });
    expect(firstHits.body.data[0]).toMatchObject({
      entity_id: entityId,
      entity: { primary_name: name, dates_of_birth: ['1970-03-04'], countries: ['GB'], programs: ['TEST'] },
      disposition: { disposition: 'false_positive', entity_changed: false },
    });

    // When the same person (typed in other case and spacing) is screened again, the hit is taken out.
    const second = await screened(tenant.liveKey, { ...person, fullName: `  ${name.toUpperCase()} ` });
    expect(second.status).toBe('approved');
    const secondHits = await testApp.rest('GET', `/v1/sessions/${second.id}/aml-hits`, { key: tenant.liveKey });
    expect(secondHits.body.data).toEqual([expect.objectContaining({ entity_id: entityId, suppressed: true })]);
    // The person's data changed (another date of birth): the hit is raised.
    const other = await screened(tenant.liveKey, { ...person, dateOfBirth: '1986-06-07' });
    expect(other.status).not.toBe('approved');
    // The false positive is the live environment's: the same person in sandbox is not covered (sandbox screens magic names only).

    // Monitoring after a re-import of the same record: still suppressed, the session stays approved.
    await upsertEntities(testApp.app.orm.em.fork(), [entity]);
    await monitorAfterImport(testApp.app.orm.em.fork(), testApp.app.services.bus, testApp.app.services.secrets, ['OFAC_SDN']);
    expect((await testApp.rest('GET', `/v1/sessions/${second.id}/decision`, { key: tenant.liveKey })).body.status).toBe('approved');

    // The entity's record changes (a programme added): monitoring raises the hit again and the case shows it.
    await upsertEntities(testApp.app.orm.em.fork(), [listed(name, ['TEST', 'TEST2'])]);
    await monitorAfterImport(testApp.app.orm.em.fork(), testApp.app.services.bus, testApp.app.services.secrets, ['OFAC_SDN']);
    const reopened = await testApp.rest('GET', `/v1/sessions/${second.id}/decision`, { key: tenant.liveKey });
    expect(reopened.body.status).toBe('in_review');
    expect(reopened.body.reasons.map((reason: { code: string }) => reason.code)).toContain('aml_new_hit');
    // The hit monitoring added is kept like the engine's own: snake_case, with its explanation.
    const raisedAml = reopened.body.node_results.aml_screening;
    expect(raisedAml.details.hits).toEqual([
      expect.objectContaining({
        entry_id: entity.source_id,
        found_by: 'monitoring',
        explanation: expect.objectContaining({ name_points: 100, token_matches: expect.any(Array) }),
      }),
    ]);
    expect(camelCaseKeys(raisedAml.details)).toEqual([]);
    const raised = await testApp.rest('GET', `/v1/sessions/${second.id}/aml-hits`, { key: tenant.liveKey });
    expect(raised.body.data).toEqual([
      expect.objectContaining({
        entity_id: entityId,
        found_by: 'monitoring',
        suppressed: false,
        entity: expect.objectContaining({ programs: ['TEST', 'TEST2'] }),
      }),
    ]);
    // The first session's false positive now reads as made on an older record.
    const firstAgain = await testApp.rest('GET', `/v1/sessions/${first.id}/aml-hits`, { key: tenant.liveKey });
    expect(firstAgain.body.data[0].disposition.entity_changed).toBe(true);
  });
});
