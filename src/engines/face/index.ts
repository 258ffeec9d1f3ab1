/** The face engine: analysis and comparison (analyze.ts), cancelable templates (template.ts), the live node engine (engine.ts). */
export {
  analyzeFace,
  compareFaces,
  detectFaces,
  detectionStats,
  DETECTION_REUSE_MS,
  faceMatchOutcome,
  livenessOutcome,
  similarity,
  EMBEDDING_DIMENSION,
  type AnalyzeFaceOptions,
  type FaceAnalysis,
  type FaceComparison,
} from './analyze.js';
export { closeFaceEngine } from './human.js';
export {
  fingerprint,
  projectTemplate,
  templateBytes,
  templateFromBytes,
  toTemplate,
  TEMPLATE_DIMENSION,
  TEMPLATE_VALUE_MAX,
} from './template.js';
export { liveFaceEngine, LIVE_FACE_PROVIDER } from './engine.js';
export * from './thresholds.js';
