/**
 * Decision thresholds of the face engine, chosen from the same/different similarity
 * distributions of face-api's descriptor measured by `bench/face-thresholds.ts` (the face photos
 * shipped in the human package) and `npm run bench:accuracy:face` (the development set); the
 * numbers and the reasoning are in docs/face.md. Cancelable templates are an exact rotation of
 * the embedding (template v3), so the list gate uses the same pass threshold.
 */

/**
 * Cosine similarity at or above which selfie and portrait are the same person (face-api descriptor).
 * Placed by `npm run bench:accuracy:face-real` on calibration photos only (89 photos of 22 people:
 * the development set, face-api.js's TV stills, facenet-pytorch's and facenet's test photos; 247
 * same-person and 3,408 different-person pairs, the highest different-person pair 0.929): on the
 * held-apart evaluation photos (deepface's tests, 61 of 13 people) it gives FMR 1/1,690 and FNMR
 * 0/140, where 0.92 gave FMR 4/1,690. Sets, licences and the curve in docs/face.md.
 */
export const FACE_MATCH_PASS_SIMILARITY = 0.93;
/** Cosine similarity from which (up to the pass threshold) a human must compare; below it the faces do not match (no same-person pair measured below it). */
export const FACE_MATCH_REVIEW_SIMILARITY = 0.88;
/** Liveness score (0–1) below which the selfie fails when the antispoof score is low too (`REAL_REVIEW_BELOW`), and goes to review otherwise. */
export const LIVE_FAIL_BELOW = 0.3;
/** Liveness score (0–1) below which (down to `LIVE_FAIL_BELOW`) the selfie goes to review. */
export const LIVE_REVIEW_BELOW = 0.5;
/** Antispoof score (0–1) below which the selfie goes to review (the 1st percentile of genuine faces measured). */
export const REAL_REVIEW_BELOW = 0.3;
/**
 * Cosine similarity of selfie and document portrait at or above which the selfie is taken for the
 * portrait itself (a crop, photo or screen of the document): every replayed crop of a real
 * document specimen reaches it (lowest 0.990), no genuine pair of the development set does
 * (highest 0.970), but 4 of 153 pairs of small thumbnails of one man do (up to 0.990): figures and
 * limits in docs/face.md "Document-portrait replays".
 */
export const PORTRAIT_REPLAY_SIMILARITY = 0.98;
/**
 * Correlation of the selfie's and the portrait's aligned face crops (aligned-crop.ts) at or above
 * which the selfie is taken for the portrait itself, when the embeddings agree at least as far as
 * a face match under review (`FACE_MATCH_REVIEW_SIMILARITY`): the image-level replay signal, which
 * an embedding moved by noise or small perturbations does not escape. Figures in docs/face.md.
 */
export const PORTRAIT_REPLAY_CROP_CORRELATION = 0.94;
