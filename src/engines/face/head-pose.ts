/**
 * Head pose from face-api's 68 landmarks (iBUG 300-W order), for active liveness: how far the
 * head is turned left or right (yaw) and up or down (pitch), as ratios of the face's own
 * proportions. The landmarks are first turned so the eyes lie level, so tilting the head in the
 * picture's plane (or rotating a photo) changes nothing, and every measure is a ratio of two
 * lengths, so zooming changes nothing either: a still photo moved, zoomed or rotated in 2D keeps
 * one pose, which is why a head-turn challenge defeats it.
 */

/** A landmark point. */
export interface Point {
  x: number;
  y: number;
}

/** A head pose as ratios (no unit). */
export interface HeadPose {
  /**
   * Where the nose tip sits between the two sides of the jaw, −1 to 1: 0 frontal; positive when the
   * nose has moved towards the picture's right, which is the person's left (the head turned to its left).
   */
  yaw: number;
  /** Nose tip height between the eye line (0) and the chin (1): smaller when the head tips up. */
  pitch: number;
}

/** Mean of points. */
function mean(points: Point[]): Point {
  return { x: points.reduce((sum, p) => sum + p.x, 0) / points.length, y: points.reduce((sum, p) => sum + p.y, 0) / points.length };
}

/** The head pose of 68 landmarks, or null when there are not 68. */
export function headPose(landmarks: readonly Point[]): HeadPose | null {
  if (landmarks.length !== 68) return null;
  // Level the eyes: rotate every point about the eyes' midpoint by minus the eye line's angle.
  const leftEye = mean(landmarks.slice(36, 42));
  const rightEye = mean(landmarks.slice(42, 48));
  const angle = Math.atan2(rightEye.y - leftEye.y, rightEye.x - leftEye.x);
  const centre = mean([leftEye, rightEye]);
  const [cos, sin] = [Math.cos(-angle), Math.sin(-angle)];
  const level = landmarks.map((p) => ({
    x: centre.x + (p.x - centre.x) * cos - (p.y - centre.y) * sin,
    y: centre.y + (p.x - centre.x) * sin + (p.y - centre.y) * cos,
  }));
  const jawLeft = level[0];
  const jawRight = level[16];
  const noseTip = level[30];
  const chin = level[8];
  const jawWidth = jawRight.x - jawLeft.x;
  const faceHeight = chin.y - centre.y;
  if (jawWidth <= 0 || faceHeight <= 0) return null;
  const yaw = (2 * (noseTip.x - jawLeft.x)) / jawWidth - 1;
  const pitch = (noseTip.y - centre.y) / faceHeight;
  return { yaw: Math.round(yaw * 1000) / 1000, pitch: Math.round(pitch * 1000) / 1000 };
}
