/**
 * Candidate retrieval of two builds of the AML name index over the same stored names, in one
 * process, alternated query by query: `npx tsx bench/aml-rank-compare.ts --baseline <path of
 * another checkout's src/engines/aml/name-index.ts> [--queries 300]`. Why: under a shared
 * machine's load, wall times of separate runs are not comparable; the same queries through both
 * indexes in one run are. Reads the names already loaded (run bench/aml.ts first, on the same
 * DATABASE_URL); prints p50/p95/p99 wall ms and CPU ms per lookup, and whether both return the
 * same candidates.
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/shared/config.js';
import { openDatabase } from '../src/db/database.js';
import { AML_LISTS, entityId } from '../src/engines/aml/entity.js';
import { AmlNameIndex } from '../src/engines/aml/name-index.js';
import { nameVariants } from '../src/engines/aml/normalize.js';
import { CANDIDATE_LIMIT, CANDIDATE_MIN_SIMILARITY, candidateForms } from '../src/engines/aml/store.js';
import { prng } from '../test/support/prng.js';

const { values } = parseArgs({ options: { baseline: { type: 'string' }, queries: { type: 'string', default: '300' } } });
if (!values.baseline) throw new Error('--baseline <path to the other name-index.ts> is required');
const QUERIES = Number(values.queries);
const random = prng(5);

/** p-th percentile (0..100), nearest rank. */
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, PGLITE_DATA_DIR: 'memory', LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false' });
  const database = await openDatabase(config, pino({ level: 'silent' }), { migrate: false });
  try {
    const em = database.orm.em.fork();
    const { AmlNameIndex: Baseline } = (await import(values.baseline!)) as { AmlNameIndex: typeof AmlNameIndex };
    const rows = await em.execute<{ primary_name: string }[]>(
      `select primary_name from aml_entity tablesample bernoulli (1) limit ?`,
      [QUERIES],
      'all',
    );
    // Listed names, half with one letter changed, and as many names made of two listed names' words (mostly unlisted).
    const queries = rows.map((row, i) => {
      if (i % 3 === 0) {
        const other = rows[Math.floor(random() * rows.length)]!.primary_name.split(' ');
        return [row.primary_name.split(' ')[0], other[other.length - 1]].join(' ');
      }
      if (i % 3 === 1) return row.primary_name;
      const at = 1 + Math.floor(random() * (row.primary_name.length - 2));
      return row.primary_name.slice(0, at) + 'e' + row.primary_name.slice(at + 1);
    });
    const indexes = { baseline: new Baseline(em), changed: new AmlNameIndex(em) };
    for (const [name, index] of Object.entries(indexes)) {
      const t = performance.now();
      await index.refresh();
      console.log(`${name}: built in ${((performance.now() - t) / 1000).toFixed(1)} s, ${JSON.stringify(index.stats())}`);
    }
    const times = { baseline: { wall: [] as number[], cpu: [] as number[] }, changed: { wall: [] as number[], cpu: [] as number[] } };
    let same = 0;
    for (const [i, query] of queries.entries()) {
      const forms = candidateForms(query);
      const answers: Record<string, string> = {};
      // Alternate which goes first, so neither always meets the warmer caches.
      const order = i % 2 === 0 ? (['baseline', 'changed'] as const) : (['changed', 'baseline'] as const);
      for (const name of order) {
        const cpu = process.cpuUsage();
        const t = performance.now();
        const found = await indexes[name].candidates(
          em.fork(),
          forms,
          AML_LISTS,
          CANDIDATE_MIN_SIMILARITY,
          CANDIDATE_LIMIT,
          nameVariants(query),
        );
        const wall = performance.now() - t;
        const used = process.cpuUsage(cpu);
        if (!found) throw new Error('an index handed the lookup back (stale or not built)');
        if (i >= 10) {
          times[name].wall.push(wall);
          times[name].cpu.push((used.user + used.system) / 1000);
        }
        answers[name] = found.map(entityId).join();
      }
      if (answers.baseline === answers.changed) same += 1;
    }
    for (const [name, t] of Object.entries(times)) {
      const wall = [...t.wall].sort((a, b) => a - b);
      const cpu = [...t.cpu].sort((a, b) => a - b);
      console.log(
        `${name.padEnd(9)} wall p50 ${percentile(wall, 50).toFixed(2)} p95 ${percentile(wall, 95).toFixed(2)} p99 ${percentile(wall, 99).toFixed(2)} ms | CPU p50 ${percentile(cpu, 50).toFixed(2)} p95 ${percentile(cpu, 95).toFixed(2)} p99 ${percentile(cpu, 99).toFixed(2)} ms`,
      );
    }
    console.log(`same candidates: ${same}/${queries.length}; lookups timed: ${times.changed.wall.length} each (first 10 warm-up)`);
    await indexes.baseline.stop();
    await indexes.changed.stop();
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
