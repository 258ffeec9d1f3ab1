/**
 * `npm run bench:personal-data`: what sealing personal data at rest costs per document
 * (src/auth/personal-data.ts), beside a baseline in the same run: the JSON.stringify/JSON.parse a
 * plain jsonb column costs anyway. A real document_verification details document (sandbox shape,
 * with a recapture finding) and an AML result with one explained hit; fresh documents (seal and open
 * really run the cipher) and documents seen lately (the remembered stored forms). No database:
 * the cipher only. Option: --count <documents per run> (20000).
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { bindPersonalDataSealing, openPersonalData, sealPersonalData } from '../src/auth/personal-data.js';
import { createServiceSecrets, generateMasterKey } from '../src/auth/secrets.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Platform } from '@mikro-orm/core';

const { values } = parseArgs({ options: { count: { type: 'string', default: '20000' } } });
const COUNT = Number(values.count);

/** A platform object stands in for an ORM: sealing is bound per platform. */
class BenchPlatform extends Platform {}
const platform = new BenchPlatform();
const em = { getPlatform: () => platform } as unknown as EntityManager;
bindPersonalDataSealing({ em: { getPlatform: () => platform } }, createServiceSecrets(generateMasterKey()));

/** A document_verification details document as a live engine writes it; `index` makes each one distinct. */
function documentDetails(index: number) {
  return {
    result_code: 'clear',
    document_type: 'PASSPORT',
    issuing_country: 'GB',
    checks: { document_authentic: 'passed', mrz_match: 'passed', expiry_check: 'passed', nfc_signature: 'skipped' },
    extracted: {
      first_name: 'ADA',
      last_name: `LOVELACE${index}`,
      date_of_birth: '1815-12-10',
      document_number: `GB${100000000 + index}`,
      expiry_date: '2031-01-01',
      nationality: 'GB',
      nationality_code: 'GBR',
      issuing_state: 'GBR',
      sex: 'F',
      document_code: 'P',
      mrz_format: 'TD3',
      last_name_viz: 'LOVELACE',
      first_name_viz: 'ADA',
    },
    recapture: {
      verdict: 'clear',
      score: 0.04,
      signals: [
        { name: 'moire', value: 0.01 },
        { name: 'glare', value: 0.02 },
      ],
    },
  };
}

/** Microseconds per call of `work` over COUNT documents. */
function measure(work: (index: number) => unknown): number {
  for (let index = 0; index < 500; index += 1) work(index);
  const started = performance.now();
  for (let index = 0; index < COUNT; index += 1) work(index);
  return ((performance.now() - started) * 1000) / COUNT;
}

const plain = Array.from({ length: COUNT }, (_, index) => documentDetails(index));
const plainText = plain.map((document) => JSON.stringify(document));
const baselineWrite = measure((index) => JSON.stringify(plain[index]!));
const baselineRead = measure((index) => JSON.parse(plainText[index]!));
// Fresh documents: each distinct, more than the remembered forms, so each runs the cipher.
const stored = plain.map((document) => sealPersonalData(em, document));
const sealFresh = measure((index) => sealPersonalData(em, documentDetails(COUNT + index)));
const openFresh = measure((index) => openPersonalData(em, JSON.parse(JSON.stringify(stored[index]))));
// The same document again and again: a session polled, an unchanged entity flushed.
const sealSeen = measure(() => sealPersonalData(em, plain[0]!));
const openSeen = measure(() => openPersonalData(em, stored[0]));
const bytesPlain = plainText[0]!.length;
const bytesStored = JSON.stringify(stored[0]).length;

console.log(`\nbench:personal-data — ${COUNT} documents per run, Node ${process.version}\n`);
console.log('| run | µs per document | vs baseline |');
console.log('|---|---|---|');
const row = (name: string, micros: number, base: number) =>
  console.log(`| ${name} | ${micros.toFixed(1)} | +${(micros - base).toFixed(1)} µs |`);
row('baseline write: JSON.stringify', baselineWrite, baselineWrite);
row('seal, fresh document', sealFresh, baselineWrite);
row('seal, document seen lately', sealSeen, baselineWrite);
row('baseline read: JSON.parse', baselineRead, baselineRead);
row('open, fresh document', openFresh, baselineRead);
row('open, document seen lately', openSeen, baselineRead);
console.log(
  `\nstored size: ${bytesPlain} bytes in clear → ${bytesStored} bytes sealed (${((bytesStored / bytesPlain) * 100).toFixed(0)} %)`,
);
