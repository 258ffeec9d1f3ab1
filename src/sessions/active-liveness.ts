/**
 * Active liveness (docs/hosted-flow.md "Active liveness"), for workflows with `liveness: active`:
 * the server issues a single-use challenge (a random order of head turns), the page sends a short
 * burst of camera frames taken while each turn was asked for, and the server checks that the
 * head pose follows the challenge in order, that the face stays the selfie's face, and that the
 * frames are fresh (the challenge's nonce, frame times that fit the time since it was issued,
 * none faster than a camera). A still photo, moved, zoomed or rotated in 2D, keeps one pose
 * (head-pose.ts) and fails. A person who cannot turn their head uses the non-motion alternative,
 * which goes to review.
 */
import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { Session } from '../../entities/session.entity.js';
import type { Principal } from '../auth/context.js';
import type { NodeResult, Warning } from '../domain/types.js';
import { decodeDataUri } from '../engines/data-uri.js';
import { similarity } from '../engines/face/analyze.js';
import { analyzeFaceOffThread } from '../engines/pool/executor.js';
import { SELFIE_MIME_TYPES } from '../engines/inputs.js';
import { headPose, type HeadPose } from '../engines/face/head-pose.js';
import { FACE_MATCH_REVIEW_SIMILARITY } from '../engines/face/thresholds.js';
import { isClientError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { parseOrThrow } from '../shared/validation.js';
import { checkNonce, issueNonce, type IssuedNonce } from './capture-integrity.js';
import { NODE_INPUT_FIELDS } from '../shared/node-input-schemas.js';
import { storedDetails } from '../engines/stored-details.js';
import type { ActiveLivenessRecord } from './stored-node-details.js';

/** The head turns a challenge is made of (the person's own left and right). */
export const LIVENESS_MOVES = ['left', 'right', 'up'] as const;
/** One head turn. */
export type LivenessMove = (typeof LIVENESS_MOVES)[number];
/** What a frame was taken for: the neutral start, or one move of the challenge. */
export const FRAME_PHASES = ['neutral', ...LIVENESS_MOVES] as const;

/**
 * Yaw change from the neutral pose that counts as a turn (head-pose.ts ratios). Real turns of one
 * person measured 0.26–0.39; a still zoomed or rotated in 2D moved at most 0.06 (docs/hosted-flow.md).
 */
export const YAW_TURN = 0.18;
/** Pitch decrease from the neutral pose that counts as looking up (real: 0.08; a 2D-moved still: at most 0.03). */
export const PITCH_UP = 0.05;
/** Fewest frames a burst may have: the neutral one and one per move. */
export const MIN_FRAMES = 1 + LIVENESS_MOVES.length;
/** Most frames a burst may have (each is analysed). */
export const MAX_FRAMES = 12;
/** Largest frame, in characters of its data URI: a 640-pixel JPEG is far smaller. */
export const FRAME_MAX_LENGTH = 1024 * 1024;
/** Shortest time between two frames, in milliseconds: no camera delivers faster than 60 per second. */
export const MIN_FRAME_INTERVAL_MS = 1000 / 60;
/** Shortest time from the neutral frame to the frame of each move, in milliseconds: a head takes that long to turn. */
export const MIN_MOVE_MS = 250;
/** Slack between the page's clock and the server's, in milliseconds, when frame times are compared with the challenge's age. */
export const CLOCK_SLACK_MS = 1500;

/** The active-liveness part of the selfie step (GraphQL's `ActiveLivenessInput`). */
export const ActiveLivenessSchema = z
  .object({
    nonce: z.string().min(1).max(300),
    alternative: z.boolean().nullish(),
    frames: z
      .array(
        z
          .object({
            image: NODE_INPUT_FIELDS.image.max(FRAME_MAX_LENGTH),
            phase: z.enum(FRAME_PHASES),
            atMs: z.number().int().min(0).max(600_000),
          })
          .strict(),
      )
      .max(MAX_FRAMES)
      .nullish(),
  })
  .strict();
/** The active-liveness input as sent. */
export type ActiveLivenessInput = z.input<typeof ActiveLivenessSchema>;

/** A random order of every move, from the system's cryptographic generator. */
export function challengeMoves(): LivenessMove[] {
  const moves = [...LIVENESS_MOVES];
  for (let index = moves.length - 1; index > 0; index--) {
    const other = randomInt(index + 1);
    [moves[index], moves[other]] = [moves[other], moves[index]];
  }
  return moves;
}

/** Issues a challenge for a session's selfie step: its nonce and the moves in the order asked. */
export async function issueLivenessChallenge(
  em: EntityManager,
  services: Services,
  principal: Principal,
  sessionId: string,
): Promise<IssuedNonce & { moves: LivenessMove[] }> {
  const moves = challengeMoves();
  const issued = await issueNonce(em, services, principal, sessionId, 'biometric_kyc', 'liveness', moves);
  return { nonce: issued.nonce, expiresAt: issued.expiresAt, moves };
}

/** One analysed frame. */
export interface FramePose {
  phase: (typeof FRAME_PHASES)[number];
  atMs: number;
  pose: HeadPose | null;
  /** Cosine similarity of the frame's face with the selfie's. */
  similarity: number | null;
}

/** Whether a pose, against the neutral one, shows a move. */
export function showsMove(move: LivenessMove, pose: HeadPose, neutral: HeadPose): boolean {
  if (move === 'left') return pose.yaw - neutral.yaw >= YAW_TURN;
  if (move === 'right') return neutral.yaw - pose.yaw >= YAW_TURN;
  return neutral.pitch - pose.pitch >= PITCH_UP;
}

/**
 * The reasons a burst does not follow its challenge (none: it does): the moves in the challenge's
 * order, the last frame of each showing it; every frame the selfie's face; a camera's times.
 */
export function judgeBurst(moves: readonly LivenessMove[], frames: readonly FramePose[], challengeAgeMs: number): string[] {
  const reasons: string[] = [];
  const neutral = frames.find((frame) => frame.phase === 'neutral');
  if (!neutral?.pose) return ['no_neutral_frame'];
  if (frames.some((frame) => frame.pose === null || frame.similarity === null)) reasons.push('face_not_found');
  if (frames.some((frame) => frame.similarity !== null && frame.similarity < FACE_MATCH_REVIEW_SIMILARITY))
    reasons.push('identity_changed');
  // Times: increasing, no faster than a camera, within the challenge's age.
  for (let index = 1; index < frames.length; index++)
    if (frames[index].atMs - frames[index - 1].atMs < MIN_FRAME_INTERVAL_MS) reasons.push('frames_too_fast');
  if (frames[frames.length - 1].atMs > challengeAgeMs + CLOCK_SLACK_MS) reasons.push('frames_older_than_challenge');
  // Phases: the neutral frame first, then the moves in the challenge's order.
  const order = frames.map((frame) => frame.phase).filter((phase, index, all) => index === 0 || all[index - 1] !== phase);
  if (order.join(',') !== ['neutral', ...moves].join(',')) reasons.push('moves_out_of_order');
  for (const move of moves) {
    // The last frame of each move, taken once the person has had time to turn, must show that
    // move: a recording that cycles through every turn rarely shows the asked one at that moment.
    const ofMove = frames.filter((frame) => frame.phase === move);
    const last = ofMove[ofMove.length - 1];
    if (!last?.pose || !showsMove(move, last.pose, neutral.pose)) reasons.push(`no_${move}_turn`);
    if (last && last.atMs - neutral.atMs < MIN_MOVE_MS) reasons.push('turn_too_fast');
  }
  return [...new Set(reasons)];
}

/** What the active check adds to the selfie's result, and the nonce to use up. */
export interface ActiveLivenessOutcome {
  apply(result: Omit<NodeResult, 'required'>): Omit<NodeResult, 'required'>;
  nonceId: string | null;
}

/**
 * Runs the active check of a selfie step in a workflow with `liveness: active`: the challenge's
 * nonce, then each frame's face (pose and identity against the selfie). No burst, a bad nonce or
 * a burst that does not follow the challenge fails the step (`active_liveness_failed`, which may
 * be retried); the alternative sends it to review (`active_liveness_alternative`).
 */
export async function checkActiveLiveness(
  em: EntityManager,
  services: Services,
  session: Pick<Session, 'id'>,
  selfie: string,
  raw: unknown,
): Promise<ActiveLivenessOutcome> {
  if (raw === undefined || raw === null) return failed(['no_challenge'], null, {});
  const input = parseOrThrow(ActiveLivenessSchema, raw);
  const nonce = await checkNonce(em, services, session.id, 'biometric_kyc', 'liveness', input.nonce);
  const moves = (nonce.moves ?? []) as LivenessMove[];
  if (nonce.state !== 'valid') return failed([`challenge_${nonce.state}`], null, { moves });
  if (input.alternative) {
    return {
      nonceId: nonce.id!,
      apply: (result) => {
        const warning: Warning = {
          code: 'active_liveness_alternative',
          message: 'The person took the non-motion alternative to the head-turn challenge: a reviewer looks at the selfie.',
        };
        const record: ActiveLivenessRecord = { result: 'alternative', moves };
        const details = { ...result.details, active_liveness: record };
        if (result.status === 'failed') return { ...result, details };
        return { ...result, status: 'review', warnings: [...result.warnings, warning], details };
      },
    };
  }
  const frames = input.frames ?? [];
  if (frames.length < MIN_FRAMES) return failed(['too_few_frames'], nonce.id!, { moves });
  // On the engine threads like every face analysis (one frame at a time): never on the API's event loop.
  const analyze = (bytes: Buffer, options: { field: string; pick: 'only' | 'largest' }) =>
    analyzeFaceOffThread(services.engines.executor, bytes, options);
  const selfieFace = await analyze(decodeDataUri(selfie, 'selfie', SELFIE_MIME_TYPES).bytes, { field: 'selfie', pick: 'only' });
  const posed: FramePose[] = [];
  for (const [index, frame] of frames.entries()) {
    const field = `liveness.frames.${index}.image`;
    let analysis;
    try {
      analysis = await analyze(decodeDataUri(frame.image, field, SELFIE_MIME_TYPES).bytes, { field, pick: 'largest' });
    } catch (error) {
      // A frame without a face is evidence (no pose); busy or timed-out engines are the server's 503, not the person's.
      if (!isClientError(error)) throw error;
      analysis = null;
    }
    posed.push({
      phase: frame.phase,
      atMs: frame.atMs,
      pose: analysis ? headPose(analysis.landmarks) : null,
      similarity: analysis ? Math.round(similarity(analysis.embedding, selfieFace.embedding) * 1000) / 1000 : null,
    });
  }
  const challengeAgeMs = Date.now() - nonce.issuedAt!.getTime();
  const reasons = judgeBurst(moves, posed, challengeAgeMs);
  // Kept in the spec's snake_case, as every stored detail (`at_ms`, not the frames' own `atMs`).
  const evidence = storedDetails({ moves, frames: posed, challengeAgeMs });
  if (reasons.length > 0) return failed(reasons, nonce.id!, evidence);
  return {
    nonceId: nonce.id!,
    apply: (result) => ({
      ...result,
      details: { ...result.details, active_liveness: { result: 'passed', ...evidence } satisfies ActiveLivenessRecord },
    }),
  };
}

/** A failed active check: the step fails with `active_liveness_failed` and the reasons named. */
function failed(
  reasons: string[],
  nonceId: string | null,
  evidence: Omit<ActiveLivenessRecord, 'result' | 'reasons'>,
): ActiveLivenessOutcome {
  return {
    nonceId,
    apply: (result) => ({
      ...result,
      status: 'failed',
      details: {
        ...result.details,
        result_code: 'active_liveness_failed',
        active_liveness: { result: 'failed', reasons, ...evidence } satisfies ActiveLivenessRecord,
      },
    }),
  };
}
