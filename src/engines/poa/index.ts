/** The live proof-of-address engine and its parts (text, fields, dates, geocode, tamper). */
export {
  analyseProofOfAddress,
  createLivePoaEngine,
  livePoaEngine,
  NAME_MATCH_MIN_SIMILARITY,
  POA_MIME_TYPES,
  TAMPER_FAIL_SCORE,
  TAMPER_REVIEW_SCORE,
  type PoaAnalysis,
  type PoaEngineOptions,
  type TamperMethod,
  type TextSource,
} from './engine.js';
export { ageInDays, findDates, findIssueDate, MONTH_FIRST_COUNTRIES } from './dates.js';
export { extractFields, type ExtractedFields } from './fields.js';
export { checkAddress, POSTCODE_PATTERNS, type GeocodeResult } from './geocode.js';
export { closeOcrWorker, recognizeText } from './ocr.js';
export { elaTamperScore } from './tamper.js';
