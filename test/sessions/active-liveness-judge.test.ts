/**
 * The active-liveness judge on its own (src/sessions/active-liveness.ts): the rules the real-photo
 * API test cannot reach with three photos: a recording that cycles through every turn, frames
 * faster than a camera, turns faster than a head, and the challenge's randomness.
 */
import { describe, expect, it } from 'vitest';
import { challengeMoves, judgeBurst, type FramePose, type LivenessMove } from '../../src/sessions/active-liveness.js';

const NEUTRAL = { yaw: 0.05, pitch: 0.32 };
const POSES: Record<LivenessMove | 'neutral', { yaw: number; pitch: number }> = {
  neutral: NEUTRAL,
  left: { yaw: 0.32, pitch: 0.3 },
  right: { yaw: -0.33, pitch: 0.29 },
  up: { yaw: 0.06, pitch: 0.24 },
};

/** A burst whose frame of each phase shows `shown(phase)`, two frames per move 600 ms apart. */
function burst(moves: readonly LivenessMove[], shown: (phase: LivenessMove, index: number) => LivenessMove | 'neutral'): FramePose[] {
  const frames: FramePose[] = [{ phase: 'neutral', atMs: 600, pose: NEUTRAL, similarity: 0.97 }];
  moves.forEach((move, index) => {
    for (const offset of [1300, 1900])
      frames.push({ phase: move, atMs: 600 + index * 1900 + offset, pose: POSES[shown(move, frames.length)], similarity: 0.96 });
  });
  return frames;
}

describe('judgeBurst', () => {
  const moves: LivenessMove[] = ['up', 'left', 'right'];

  it('given a burst that follows the challenge, then no reason', () => {
    expect(
      judgeBurst(
        moves,
        burst(moves, (move) => move),
        10_000,
      ),
    ).toEqual([]);
  });

  it('given a recording that cycles left, right, up at its own pace, then the asked turns are missing', () => {
    const cycle: LivenessMove[] = ['left', 'right', 'up'];
    const reasons = judgeBurst(
      moves,
      burst(moves, (_move, index) => cycle[index % 3]),
      10_000,
    );
    expect(reasons.some((reason) => reason.startsWith('no_'))).toBe(true);
  });

  it('given frames 5 ms apart, then frames_too_fast; given a turn 100 ms after the neutral frame, then turn_too_fast', () => {
    const fast = burst(moves, (move) => move).map((frame, index) => ({ ...frame, atMs: index * 5 }));
    expect(judgeBurst(moves, fast, 10_000)).toEqual(expect.arrayContaining(['frames_too_fast', 'turn_too_fast']));
  });

  it('given a frame without a face, then face_not_found', () => {
    const frames = burst(moves, (move) => move);
    frames[2] = { ...frames[2], pose: null, similarity: null };
    expect(judgeBurst(moves, frames, 10_000)).toContain('face_not_found');
  });
});

describe('challengeMoves', () => {
  it('given many challenges, then each is every move once and all six orders occur', () => {
    const orders = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const order = challengeMoves();
      expect([...order].sort()).toEqual(['left', 'right', 'up']);
      orders.add(order.join(','));
    }
    expect(orders.size).toBe(6);
  });
});
