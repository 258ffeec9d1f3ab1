/**
 * Decision thresholds of the face engine, chosen from the same/different similarity
 * distributions measured by `bench/face-thresholds.ts` on the face photos shipped in the
 * human package; the numbers and the reasoning are in docs/face.md. Cancelable templates
 * (a 256-d random projection) move each cosine a little; measured on templates the pass
 * threshold still keeps false accepts ≤ 0.1%, so the list gate uses it too (docs/face.md).
 */

/** Cosine similarity at or above which selfie and portrait are the same person (measured false accepts ≤ 0.1%). */
export const FACE_MATCH_PASS_SIMILARITY = 0.65;
/** Cosine similarity from which (up to the pass threshold) a human must compare; below it the faces do not match (measured false rejects 6%). */
export const FACE_MATCH_REVIEW_SIMILARITY = 0.45;
/** Liveness score (0–1) below which the selfie is taken for a reproduction and fails (1 genuine face in 106 measured below it). */
export const LIVE_FAIL_BELOW = 0.3;
/** Liveness score (0–1) below which (down to `LIVE_FAIL_BELOW`) the selfie goes to review. */
export const LIVE_REVIEW_BELOW = 0.5;
/** Antispoof score (0–1) below which the selfie goes to review (the 1st percentile of genuine faces measured). */
export const REAL_REVIEW_BELOW = 0.3;
