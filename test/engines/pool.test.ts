/**
 * The engine pool: live engine work runs in piscina worker threads, so the API keeps answering
 * while a verification runs; a full waiting line is a 503 `engines_busy` with `Retry-After`; a call
 * over its time budget is a 503 `engine_timeout`; an aborted call is abandoned and the pool goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMrzReader } from '../../src/engines/document/mrz-reader.js';
import { createPoolExecutor, type EngineExecutor } from '../../src/engines/pool/executor.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { renderDocument, toDataUri, type SyntheticIdentity, samplePassport } from '../id-verification/support/synthetic-document.js';

const VERIFY_PATH = '/v1/id-verification';
const CHEAP_PATH = '/v1/workflows';

const PASSPORT: SyntheticIdentity = samplePassport();

let passport: string;

beforeAll(async () => {
  passport = toDataUri(await renderDocument(PASSPORT, { jpegQuality: 70 }));
});

afterAll(async () => {
  await closeMrzReader();
});

describe('given the API with the default engine pool', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    testApp = await startTestApp({ ENGINE_POOL_SIZE: '1' });
    tenant = await testApp.tenant();
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it(
    'when a passport is verified, then the work runs on a pool thread and cheap requests are answered while it runs',
    { timeout: 120_000 },
    async () => {
      const executor = testApp.app.engines.executor as EngineExecutor & { pool: { completed: number } };
      expect(executor.mode).toBe('pool');
      const completedBefore = executor.pool.completed;
      let verificationAnswered = false;
      const verification = testApp.rest('POST', VERIFY_PATH, {
        key: tenant.liveKey,
        body: { country: 'FR', id_type: 'PASSPORT', image_front: passport },
      });
      void verification.then(() => (verificationAnswered = true));

      // Cheap requests one after another until the verification answers: each is an event that the
      // loop was free while the engine worked.
      let cheapAnswersDuringVerification = 0;
      while (!verificationAnswered) {
        const cheap = await testApp.rest('GET', CHEAP_PATH, { key: tenant.liveKey });
        expect(cheap.status).toBe(200);
        if (!verificationAnswered) cheapAnswersDuringVerification += 1;
      }

      const response = await verification;
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'passed', result_code: 'clear', checks: { mrz_match: 'passed' } });
      expect(executor.pool.completed).toBeGreaterThan(completedBefore);
      expect(cheapAnswersDuringVerification).toBeGreaterThan(1);
    },
  );

  it('when the image is not an image, then the 400 made in the pool thread keeps its code and field', async () => {
    const response = await testApp.rest('POST', VERIFY_PATH, {
      key: tenant.liveKey,
      body: {
        country: 'FR',
        id_type: 'PASSPORT',
        image_front: `data:image/jpeg;base64,${Buffer.from('not a jpeg at all').toString('base64')}`,
      },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'image_front' })] });
  });
});

describe('given a pool of one thread and a waiting line of one', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    testApp = await startTestApp({ ENGINE_POOL_SIZE: '1', ENGINE_QUEUE_LIMIT: '1' });
    tenant = await testApp.tenant();
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it(
    'when four verifications arrive at once, then those past the line get 503 engines_busy with Retry-After and the others pass',
    { timeout: 180_000 },
    async () => {
      const body = { country: 'FR', id_type: 'PASSPORT', image_front: passport };
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => testApp.rest('POST', VERIFY_PATH, { key: tenant.liveKey, body })),
      );

      const busy = responses.filter((response) => response.status === 503);
      const passed = responses.filter((response) => response.status === 200);
      expect(passed.length).toBeGreaterThanOrEqual(1);
      expect(busy.length).toBeGreaterThanOrEqual(2);
      expect(passed.length + busy.length).toBe(4);
      for (const response of busy) {
        expect(response.body).toMatchObject({ code: 'engines_busy', status: 503 });
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    },
  );
});

describe('given a time budget shorter than any verification', () => {
  let testApp: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    testApp = await startTestApp({ ENGINE_POOL_SIZE: '1', ENGINE_TIMEOUT_MS: '10' });
    tenant = await testApp.tenant();
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('when a passport is verified, then it answers 503 engine_timeout as a problem and the API still answers', async () => {
    const response = await testApp.rest('POST', VERIFY_PATH, {
      key: tenant.liveKey,
      body: { country: 'FR', id_type: 'PASSPORT', image_front: passport },
    });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 'engine_timeout', status: 503, type: 'https://errors.openkyc.dev/engine_timeout' });
    expect(response.body.detail).toMatch(/time budget of 10 ms/);

    const cheap = await testApp.rest('GET', CHEAP_PATH, { key: tenant.liveKey });
    expect(cheap.status).toBe(200);
  });
});

describe('given a pool executor of one thread', () => {
  let executor: ReturnType<typeof createPoolExecutor>;
  let face: string;
  beforeAll(async () => {
    executor = createPoolExecutor({ threads: 1, queueLimit: 4, timeoutMs: 60_000 });
    face = (await faceSamplePng(faceSample('g0_00'))).toString('base64');
  });
  afterAll(async () => {
    await executor?.close();
  });

  it(
    'when a running task is aborted, then it rejects with the abort reason and the next task still runs',
    { timeout: 120_000 },
    async () => {
      const controller = new AbortController();
      const abandoned = executor.run({ kind: 'face', imageBase64: face, options: { pick: 'only' } }, controller.signal);
      controller.abort(new Error('client went away'));
      await expect(abandoned).rejects.toThrow();

      const outcome = await executor.run({ kind: 'face', imageBase64: face, options: { pick: 'only' } });
      expect(outcome).toMatchObject({ ok: true, value: { faces: 1 } });
    },
  );

  it(
    'when the image has no face, then the outcome carries the 400 instead of throwing it across the thread',
    { timeout: 120_000 },
    async () => {
      const blank = Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        'base64',
      ).toString('base64');
      const outcome = await executor.run({ kind: 'face', imageBase64: blank, options: { field: 'selfie', pick: 'only' } });
      expect(outcome).toMatchObject({ ok: false, error: { kind: 'api', code: 'validation_failed' } });
    },
  );
});

describe('given a document verification abandoned while it runs', () => {
  it(
    'when the client goes away and the executor closes, then the task finishes on its thread (never terminated inside native OCR) and the process lives on',
    { timeout: 180_000 },
    async () => {
      // A thread terminated inside onnxruntime aborts the whole process ("terminate called after
      // throwing an instance of 'Napi::Error'"): this test file would die with it.
      const executor = createPoolExecutor({ threads: 1, queueLimit: 2, timeoutMs: 120_000 });
      const controller = new AbortController();
      const waitingController = new AbortController();
      const abandoned = executor.run(
        { kind: 'document', input: { country: 'FR', idType: 'PASSPORT', imageFront: passport } },
        controller.signal,
      );
      // A second call waits for the thread; abandoned in line, it never runs.
      const queued = executor.run(
        { kind: 'document', input: { country: 'FR', idType: 'PASSPORT', imageFront: passport } },
        waitingController.signal,
      );
      waitingController.abort(new Error('second client went away'));
      await expect(queued).rejects.toThrow('second client went away');
      // The first is on the thread by now: the pool hands a free thread out at once.
      controller.abort(new Error('client went away'));
      await expect(abandoned).rejects.toThrow('client went away');

      await executor.close();
      expect(executor.pool.completed).toBe(1);
    },
  );
});
