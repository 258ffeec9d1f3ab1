import { describe, expect, it } from 'vitest';
import type { AmlList, SanctionedEntity } from '../../../src/engines/aml/entity.js';
import {
  rescreenAfterImport,
  type ApprovedSubject,
  type MonitoringPort,
  type RescreenReason,
} from '../../../src/sessions/aml-monitoring.js';
import { screen } from '../../../src/engines/aml/score.js';

const entity = (list: AmlList, id: string, name: string, dob: string[] = []): SanctionedEntity => ({
  source_list: list,
  source_id: id,
  kind: 'person',
  primary_name: name,
  aliases: [],
  dates_of_birth: dob,
  countries: [],
  programs: [],
  topics: [],
});

/** A fake sessions side that records what monitoring asked of it. */
function fakePort(subjects: ApprovedSubject[]): MonitoringPort & { reviewed: { sessionId: string; reason: RescreenReason }[] } {
  const reviewed: { sessionId: string; reason: RescreenReason }[] = [];
  return {
    reviewed,
    approvedSubjects: () => subjects,
    async sendToReview(subject, reason) {
      reviewed.push({ sessionId: subject.sessionId, reason });
    },
  };
}

describe('rescreenAfterImport', () => {
  const lists: SanctionedEntity[] = [
    entity('OFAC_SDN', '1', 'Quentin Fabricated Example', ['1977-07-07']),
    entity('PEP', '2', 'Ada Lovelace'),
  ];
  const screened: { name: string; lists: readonly AmlList[] }[] = [];
  const screenInMemory = async (query: Parameters<typeof screen>[0], wanted: readonly AmlList[]) => {
    screened.push({ name: query.fullName, lists: wanted });
    return screen(query, lists, wanted);
  };

  it('given an approved subject now on an imported list, when re-screened, then it is sent to review with the new hit', async () => {
    const port = fakePort([
      { tenantId: 't1', sessionId: 's-hit', full_name: 'Example Quentin Fabricated', date_of_birth: '1977-07-07' },
      { tenantId: 't2', sessionId: 's-clean', full_name: 'Grace Hopper' },
    ]);
    const summary = await rescreenAfterImport({ importedLists: ['OFAC_SDN'], screen: screenInMemory, port });
    expect(summary).toEqual({ screened: 2, sentToReview: 1 });
    expect(port.reviewed).toEqual([
      {
        sessionId: 's-hit',
        reason: expect.objectContaining({
          code: 'aml_new_hit',
          lists: ['OFAC_SDN'],
          hits: [expect.objectContaining({ entityId: 'OFAC_SDN:1', score: 100 })],
        }),
      },
    ]);
  });

  it('given a hit the session already had, when re-screened, then it stays approved', async () => {
    const port = fakePort([{ sessionId: 's1', full_name: 'Quentin Fabricated Example', knownHitIds: ['OFAC_SDN:1'] }]);
    expect(await rescreenAfterImport({ importedLists: ['OFAC_SDN'], screen: screenInMemory, port })).toEqual({
      screened: 1,
      sentToReview: 0,
    });
    expect(port.reviewed).toEqual([]);
  });

  it('given an import of a list the session does not screen, when re-screened, then it is skipped', async () => {
    screened.length = 0;
    const port = fakePort([{ sessionId: 's1', full_name: 'Ada Lovelace', lists: ['OFAC_SDN'] }]);
    expect(await rescreenAfterImport({ importedLists: ['PEP'], screen: screenInMemory, port })).toEqual({ screened: 0, sentToReview: 0 });
    expect(screened).toEqual([]);
  });

  it('given several imported lists, when re-screened, then only those lists are screened again', async () => {
    screened.length = 0;
    const port = fakePort([{ sessionId: 's1', full_name: 'Ada Lovelace' }]);
    const summary = await rescreenAfterImport({ importedLists: ['PEP', 'UN_SC'], screen: screenInMemory, port });
    expect(summary).toEqual({ screened: 1, sentToReview: 1 });
    expect(screened).toEqual([{ name: 'Ada Lovelace', lists: ['PEP', 'UN_SC'] }]);
    expect(port.reviewed[0]?.reason.hits.map((hit) => hit.entityId)).toEqual(['PEP:2']);
  });

  it('given no imported list, when called, then nothing is listed or screened', async () => {
    const port: MonitoringPort = {
      approvedSubjects: () => {
        throw new Error('must not be called');
      },
      sendToReview: async () => undefined,
    };
    expect(await rescreenAfterImport({ importedLists: [], screen: screenInMemory, port })).toEqual({ screened: 0, sentToReview: 0 });
  });
});
