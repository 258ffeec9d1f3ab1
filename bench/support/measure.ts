/**
 * What the benchmarks measure besides time: the statements a process sends and the CPU the local
 * PostgreSQL server spends, so a run says where its time went, not only how long it took.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times (100 on every mainstream kernel). */
const CLOCK_TICKS_PER_SECOND = 100;

/** Statements this process sent, by their first words, with the summed milliseconds until each was answered. */
export interface StatementCounts {
  counts: Map<string, number>;
  ms: Map<string, number>;
}

/**
 * Counts every statement this process sends from now on (both copies of pg: MikroORM's driver has
 * its own), by its first 70 characters, and sums each kind's round trips.
 */
export function countStatements(): StatementCounts {
  const counts = new Map<string, number>();
  const ms = new Map<string, number>();
  const ormPg = createRequire(createRequire(import.meta.url).resolve('@mikro-orm/postgresql'))('pg') as typeof pg;
  for (const client of new Set([pg.Client, ormPg.Client])) {
    const original = client.prototype.query as (...args: unknown[]) => unknown;
    client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string } | undefined;
      const text = typeof first === 'string' ? first : (first?.text ?? '');
      const label = text.replace(/\s+/g, ' ').trim().slice(0, 70);
      counts.set(label, (counts.get(label) ?? 0) + 1);
      const started = performance.now();
      const result = original.apply(this, args);
      if (result instanceof Promise)
        void result.finally(() => ms.set(label, (ms.get(label) ?? 0) + performance.now() - started)).catch(() => {});
      return result;
    } as typeof pg.Client.prototype.query;
  }
  return { counts, ms };
}

/**
 * CPU time (user + system, microseconds) of every `postgres` process on this machine, exited
 * backends included through the postmaster's reaped-children time: the database's share of a
 * run when DATABASE_URL points at a local server. Null on PGlite (`embedded`: it runs inside the
 * measured process) and where /proc cannot tell.
 */
export async function databaseCpuMicros(embedded: boolean): Promise<number | null> {
  if (embedded || !/@(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(process.env.DATABASE_URL ?? '')) return null;
  try {
    let ticks = 0;
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      // Fields after the command: state is field 3; utime, stime, cutime, cstime are fields 14–17.
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    }
    return ticks > 0 ? (ticks / CLOCK_TICKS_PER_SECOND) * 1e6 : null;
  } catch {
    return null;
  }
}
