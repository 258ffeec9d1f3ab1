/**
 * Active liveness through the real API (docs/hosted-flow.md "Active liveness"), with the real face
 * models. Genuine path: real photos of one person at several head angles, from
 * ../shared/realdata/face (ageitgey/face_recognition's test images, MIT licence): obama.jpg looks
 * at the camera, obama3.jpg is turned to his left and tipped up, obama2.jpg is turned to his right.
 * Attack path: one still (obama.jpg) sent for every move, and the same still zoomed and rotated in
 * 2D with sharp, as a video made from a photo would be. Then: the order matters, a changed face
 * fails, the challenge is single use and fresh, and the non-motion alternative goes to review.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestTenant } from '../support/app.js';
import { createSession, gql, SUBMIT_SELFIE, tokenOf } from './support.js';
import { camelCaseKeys } from '../support/stored-keys.js';
import { detectionStats } from '../../src/engines/face/analyze.js';

const FACES = path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/face');
const enabled = existsSync(FACES);
if (!enabled) console.warn(`test/sessions/active-liveness.test.ts skipped: ${FACES} is absent (the shared real-data set).`);

const START = /* GraphQL */ `
  mutation ($sessionId: String!) {
    startLivenessChallenge(sessionId: $sessionId) {
      nonce
      expiresAt
      moves
    }
  }
`;
/** A face step over the real models on a loaded 2-core machine. */
const STEP_MS = 120_000;
/** Time between the frames of a burst, in milliseconds (the page takes about two frames a second). */
const FRAME_GAP_MS = 400;

type Move = 'left' | 'right' | 'up';
let testApp: TestApp;
let tenant: TestTenant;
let workflowId: string;
const photo = (name: string) => `data:image/jpeg;base64,${readFileSync(path.join(FACES, name)).toString('base64')}`;
let frontal: string;
/** The genuine photo of each move. */
let genuine: Record<Move, string>;
let biden: string;

beforeAll(async () => {
  if (!enabled) return;
  testApp = await startTestApp();
  tenant = await testApp.tenant('Active Liveness Shop');
  const workflow = await testApp.rest('POST', '/v1/workflows', {
    key: tenant.sandboxKey,
    body: { name: 'Active selfie', liveness: 'active', nodes: [{ type: 'biometric_kyc', required: true, provider: 'openkyc:face_match' }] },
  });
  expect(workflow.status).toBe(201);
  expect(workflow.body.liveness).toBe('active');
  workflowId = workflow.body.workflow_id;
  frontal = photo('obama__tests_test_images_obama.jpg');
  const turnedLeftAndUp = photo('obama__tests_test_images_obama3.jpg');
  genuine = { left: turnedLeftAndUp, right: photo('obama__tests_test_images_obama2.jpg'), up: turnedLeftAndUp };
  biden = photo('biden__tests_test_images_biden.jpg');
});

afterAll(async () => {
  await testApp?.close();
});

/** A new session with its end-user token and a challenge. */
async function challenged() {
  const created = await createSession(testApp, tenant.sandboxKey, { workflow_id: workflowId, vendor_data: `active-${Math.random()}` });
  expect(created.status).toBe(201);
  const session = { sessionId: created.body.session_id as string, token: tokenOf(created.body.url) };
  const issuedAt = Date.now();
  const started = await gql(testApp, { sessionToken: session.token }, START, { sessionId: session.sessionId });
  expect(started.body.errors).toBeUndefined();
  const challenge = started.body.data.startLivenessChallenge as { nonce: string; moves: Move[]; expiresAt: number };
  expect([...challenge.moves].sort()).toEqual(['left', 'right', 'up']);
  return { ...session, challenge, issuedAt };
}

/** The burst: the neutral frame, then one frame per move, `FRAME_GAP_MS` apart. */
function burst(moves: readonly Move[], frameOf: (move: Move | 'neutral', index: number) => string) {
  return [
    { phase: 'neutral', atMs: 0, image: frameOf('neutral', 0) },
    ...moves.map((move, index) => ({ phase: move, atMs: (index + 1) * FRAME_GAP_MS, image: frameOf(move, index + 1) })),
  ];
}

/** Submits the selfie with its liveness answer, once real time has caught up with the frames' times, and returns the face step. */
async function answer(session: Awaited<ReturnType<typeof challenged>>, liveness: Record<string, unknown>, selfie = frontal) {
  const frames = (liveness.frames as { atMs: number }[] | undefined) ?? [];
  const lastAtMs = frames.length ? frames[frames.length - 1].atMs : 0;
  // The frames claim to span lastAtMs since the challenge: a real burst takes that long.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, session.issuedAt + lastAtMs - Date.now())));
  const submitted = await gql(testApp, { sessionToken: session.token }, SUBMIT_SELFIE, {
    sessionId: session.sessionId,
    input: { selfie, liveness },
  });
  const decision = await testApp.rest('GET', `/v1/sessions/${session.sessionId}/decision`, { key: tenant.sandboxKey });
  return { submitted, status: decision.body.status, face: decision.body.node_results.biometric_kyc };
}

/** A 2D copy of the frontal still: zoomed by `scale` and rotated by `degrees` in the picture's plane. */
async function moved(scale: number, degrees: number): Promise<string> {
  const bytes = readFileSync(path.join(FACES, 'obama__tests_test_images_obama.jpg'));
  const { width } = await sharp(bytes).metadata();
  const out = await sharp(bytes)
    .resize({ width: Math.round(width! * scale) })
    .rotate(degrees, { background: '#7f7f7f' })
    .jpeg({ quality: 90 })
    .toBuffer();
  return `data:image/jpeg;base64,${out.toString('base64')}`;
}

describe.skipIf(!enabled)('active liveness', () => {
  it(
    'given real photos of one person turning as the challenge asks, when answered, then the head pose follows the challenge and the session approves',
    async () => {
      const session = await challenged();
      const onThisThread = detectionStats();
      const { submitted, status, face } = await answer(session, {
        nonce: session.challenge.nonce,
        frames: burst(session.challenge.moves, (move) => (move === 'neutral' ? frontal : genuine[move])),
      });
      expect(submitted.body.errors).toBeUndefined();
      // The selfie and the frames were analysed on the engine threads: none on the API's event loop (this thread).
      expect(detectionStats()).toEqual(onThisThread);
      expect(face.details.active_liveness).toMatchObject({ result: 'passed', moves: session.challenge.moves });
      for (const frame of face.details.active_liveness.frames) expect(frame.similarity).toBeGreaterThanOrEqual(0.88);
      // Kept in the spec's snake_case like every detail: each frame's time is `at_ms`.
      expect(face.details.active_liveness.frames[0]).toEqual(expect.objectContaining({ phase: 'neutral', at_ms: 0 }));
      expect(camelCaseKeys(face.details)).toEqual([]);
      expect(status).toBe('approved');
    },
    STEP_MS,
  );

  it(
    'given one still photo sent for every move, when answered, then active_liveness_failed: no turn was made',
    async () => {
      const session = await challenged();
      const { status, face } = await answer(session, {
        nonce: session.challenge.nonce,
        frames: burst(session.challenge.moves, () => frontal),
      });
      expect(face.status).toBe('resubmission_requested');
      expect(face.details.result_code).toBe('active_liveness_failed');
      expect(face.details.active_liveness.reasons).toEqual(expect.arrayContaining(['no_left_turn', 'no_right_turn', 'no_up_turn']));
      expect(status).not.toBe('approved');
    },
    STEP_MS,
  );

  it(
    'given a video made from one still that zooms and rotates it in 2D, when answered, then active_liveness_failed',
    async () => {
      const session = await challenged();
      const transforms: [number, number][] = [
        [1, 0],
        [0.7, 12],
        [1, -15],
        [0.6, 25],
      ];
      const frames = await Promise.all(transforms.map(([scale, degrees]) => moved(scale, degrees)));
      const { face } = await answer(session, {
        nonce: session.challenge.nonce,
        frames: burst(session.challenge.moves, (_move, index) => frames[index]),
      });
      expect(face.details.result_code).toBe('active_liveness_failed');
      const reasons: string[] = face.details.active_liveness.reasons;
      expect(reasons.filter((reason) => reason.startsWith('no_') && reason.endsWith('_turn'))).toHaveLength(3);
      // The in-plane rotation is levelled out: every pose stays within a few hundredths of the still's.
      const poses = face.details.active_liveness.frames.map((frame: { pose: { yaw: number } }) => frame.pose.yaw);
      expect(Math.max(...poses) - Math.min(...poses)).toBeLessThan(0.1);
    },
    STEP_MS,
  );

  it(
    'given genuine turns that are not the ones asked (a replayed recording of other turns), when answered, then active_liveness_failed',
    async () => {
      const session = await challenged();
      // Right when left is asked, left (and up) when right is asked, right when up is asked.
      const wrong: Record<Move, string> = { left: genuine.right, right: genuine.left, up: genuine.right };
      const { face } = await answer(session, {
        nonce: session.challenge.nonce,
        frames: burst(session.challenge.moves, (move) => (move === 'neutral' ? frontal : wrong[move])),
      });
      expect(face.details.result_code).toBe('active_liveness_failed');
      expect(face.details.active_liveness.reasons).toEqual(expect.arrayContaining(['no_left_turn', 'no_right_turn', 'no_up_turn']));
    },
    STEP_MS,
  );

  it(
    'given another person in one of the frames, when answered, then identity_changed',
    async () => {
      const session = await challenged();
      const { face } = await answer(session, {
        nonce: session.challenge.nonce,
        frames: burst(session.challenge.moves, (move, index) => (move === 'neutral' ? frontal : index === 2 ? biden : genuine[move])),
      });
      expect(face.details.result_code).toBe('active_liveness_failed');
      expect(face.details.active_liveness.reasons).toContain('identity_changed');
    },
    STEP_MS,
  );

  it(
    'given frame times longer than the challenge has existed, when answered at once, then frames_older_than_challenge',
    async () => {
      const session = await challenged();
      const frames = burst(session.challenge.moves, (move) => (move === 'neutral' ? frontal : genuine[move])).map((frame) => ({
        ...frame,
        atMs: frame.atMs + 120_000,
      }));
      const submitted = await gql(testApp, { sessionToken: session.token }, SUBMIT_SELFIE, {
        sessionId: session.sessionId,
        input: { selfie: frontal, liveness: { nonce: session.challenge.nonce, frames } },
      });
      expect(submitted.body.errors).toBeUndefined();
      const decision = await testApp.rest('GET', `/v1/sessions/${session.sessionId}/decision`, { key: tenant.sandboxKey });
      expect(decision.body.node_results.biometric_kyc.details.active_liveness.reasons).toContain('frames_older_than_challenge');
    },
    STEP_MS,
  );

  it(
    'given a challenge already answered once, when it is answered again, then challenge_reused; without any challenge, no_challenge',
    async () => {
      const session = await challenged();
      const first = await answer(session, { nonce: session.challenge.nonce, frames: burst(session.challenge.moves, () => frontal) });
      expect(first.face.status).toBe('resubmission_requested');
      const again = await answer(session, {
        nonce: session.challenge.nonce,
        frames: burst(session.challenge.moves, (move) => (move === 'neutral' ? frontal : genuine[move])),
      });
      expect(again.face.details.active_liveness.reasons).toEqual(['challenge_reused']);
      const none = await gql(testApp, { sessionToken: session.token }, SUBMIT_SELFIE, {
        sessionId: session.sessionId,
        input: { selfie: frontal },
      });
      expect(none.body.errors).toBeUndefined();
      const decision = await testApp.rest('GET', `/v1/sessions/${session.sessionId}/decision`, { key: tenant.sandboxKey });
      expect(decision.body.node_results.biometric_kyc.details.active_liveness.reasons).toEqual(['no_challenge']);
      expect(decision.body.status).toBe('declined');
    },
    STEP_MS,
  );

  it(
    'given a person who cannot turn their head, when they take the non-motion alternative, then the session goes to review with active_liveness_alternative',
    async () => {
      const session = await challenged();
      const { status, face } = await answer(session, { nonce: session.challenge.nonce, alternative: true });
      expect(status).toBe('in_review');
      expect(face.status).toBe('review');
      expect(face.warnings).toEqual([expect.objectContaining({ code: 'active_liveness_alternative' })]);
      expect(face.details.active_liveness.result).toBe('alternative');
    },
    STEP_MS,
  );

  it('given a frame with an unknown phase, when answered, then 400 and the challenge stays unused', async () => {
    const session = await challenged();
    const bad = await gql(testApp, { sessionToken: session.token }, SUBMIT_SELFIE, {
      sessionId: session.sessionId,
      input: { selfie: frontal, liveness: { nonce: session.challenge.nonce, frames: [{ image: frontal, phase: 'spin', atMs: 0 }] } },
    });
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const { face } = await answer(session, { nonce: session.challenge.nonce, alternative: true });
    expect(face.details.active_liveness.result).toBe('alternative');
  });
});
