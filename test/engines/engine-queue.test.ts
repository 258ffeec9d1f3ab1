/**
 * Engine workers that scale out: one API server (ENGINE_EXECUTION=queue) and two `npm run worker`
 * processes on the PostgreSQL server. Jobs spread over both workers, and a job whose worker is
 * killed with SIGKILL is retried by the other while the request still answers. PostgreSQL only:
 * the embedded database is one process's own, so there is no queue to share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS_SCHEMA } from '../../src/db/jobs-schema.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { renderDocument, toDataUri, type SyntheticIdentity, samplePassport } from '../id-verification/support/synthetic-document.js';

const VERIFY_PATH = '/v1/id-verification';
const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

const PASSPORT: SyntheticIdentity = samplePassport();

/** One pino line of a worker's output. */
interface WorkerLog {
  msg: string;
  jobId?: string;
  worker?: string;
  retryCount?: number;
}

/** A worker process and the log lines it printed, with a way to wait for one. */
interface RunningWorker {
  child: ChildProcess;
  logs: WorkerLog[];
  /** Resolves with the first line (already printed or to come) that matches. */
  next(match: (line: WorkerLog) => boolean): Promise<WorkerLog>;
}

/** Starts `src/bin/worker.ts` as `npm run worker` does, with one engine thread. */
function startWorker(): RunningWorker {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/worker.ts'], {
    cwd: REPOSITORY,
    env: { ...process.env, ENGINE_POOL_SIZE: '1', ENGINE_QUEUE_SUPERVISE_SECONDS: '1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const logs: WorkerLog[] = [];
  const waiting: { match: (line: WorkerLog) => boolean; resolve: (line: WorkerLog) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let line: WorkerLog;
    try {
      line = JSON.parse(text) as WorkerLog;
    } catch {
      return;
    }
    logs.push(line);
    for (const waiter of waiting.filter((candidate) => candidate.match(line))) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  return {
    child,
    logs,
    next(match) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiting.push({ match, resolve }));
    },
  };
}

async function stopWorker(worker: RunningWorker): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = once(worker.child, 'exit');
  worker.child.kill('SIGTERM');
  await exited;
}

describe.skipIf(!process.env.DATABASE_URL)('given one API server and two engine worker processes on PostgreSQL', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  let workers: RunningWorker[];
  let passport: string;

  beforeAll(async () => {
    passport = toDataUri(await renderDocument(PASSPORT, { jpegQuality: 70 }));
    testApp = await startTestApp({ ENGINE_EXECUTION: 'queue' });
    tenant = await testApp.tenant();
    workers = [startWorker(), startWorker()];
    await Promise.all(workers.map((worker) => worker.next((line) => line.msg === 'engine worker started')));
  }, 120_000);

  afterAll(async () => {
    await Promise.all((workers ?? []).map(stopWorker));
    await testApp?.close();
  });

  const verify = () =>
    testApp.rest('POST', VERIFY_PATH, { key: tenant.liveKey, body: { country: 'FR', id_type: 'PASSPORT', image_front: passport } });

  it('when four verifications arrive together, then both workers run some and every request answers', { timeout: 240_000 }, async () => {
    expect(testApp.app.engines.executor.mode).toBe('queue');
    const responses = await Promise.all([verify(), verify(), verify(), verify()]);

    for (const response of responses) expect(response.body).toMatchObject({ status: 'passed', result_code: 'clear' });
    const finishedBy = workers.map((worker) => worker.logs.filter((line) => line.msg === 'engine job finished').length);
    expect(finishedBy.every((count) => count >= 1)).toBe(true);
    // At least: on a shared database the workers may also finish a job an earlier, interrupted run left queued.
    expect(finishedBy[0]! + finishedBy[1]!).toBeGreaterThanOrEqual(4);
  });

  it(
    'when the worker running a job is killed with SIGKILL, then the other retries it and the request still answers',
    { timeout: 240_000 },
    async () => {
      const earlierJobs = new Set(workers.flatMap((worker) => worker.logs.map((line) => line.jobId)));
      const response = verify();
      const started = await Promise.race(
        workers.map((worker, index) =>
          worker.next((line) => line.msg === 'engine job started' && !earlierJobs.has(line.jobId)).then((line) => ({ line, index })),
        ),
      );
      const victim = workers[started.index]!;
      const survivor = workers[1 - started.index]!;
      const killed = once(victim.child, 'exit');
      victim.child.kill('SIGKILL');
      await killed;

      const answer = await response;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'passed', result_code: 'clear' });
      const retried = await survivor.next((line) => line.msg === 'engine job finished' && line.jobId === started.line.jobId);
      expect(retried.worker).not.toBe(started.line.worker);
      const retryStart = survivor.logs.find((line) => line.msg === 'engine job started' && line.jobId === started.line.jobId);
      expect(retryStart?.retryCount).toBeGreaterThanOrEqual(1);
    },
  );

  it(
    'when the queue gives up on a running job (failed, as after its last retry), then the request answers 503 with Retry-After, not 500',
    { timeout: 240_000 },
    async () => {
      const running = workers.filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null);
      const earlierJobs = new Set(workers.flatMap((worker) => worker.logs.map((line) => line.jobId)));
      const response = verify();
      const started = await Promise.race(
        running.map((worker) => worker.next((line) => line.msg === 'engine job started' && !earlierJobs.has(line.jobId))),
      );
      // What pg-boss's supervisor writes when a job's last attempt lost its worker.
      await testApp.app.orm.em.fork().execute(`update ${JOBS_SCHEMA}.job set state = 'failed' where id = ?`, [started.jobId]);

      const answer = await response;
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(answer.headers.get('retry-after')).toBe('5');
    },
  );
});
