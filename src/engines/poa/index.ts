/** The live proof-of-address engine and its parts (text, layout, fields, dates, geocode, tamper). */
export {
  analyseProofOfAddress,
  createLivePoaEngine,
  livePoaEngine,
  NAME_MATCH_MIN_SIMILARITY,
  TAMPER_FAIL_SCORE,
  TAMPER_REVIEW_SCORE,
  type PoaAnalysis,
  type PoaEngineOptions,
  type TamperMethod,
  type TextSource,
} from './engine.js';
export { ageInDays, findDates, findIssueDate, findIssueDateInRows, MONTH_FIRST_COUNTRIES } from './dates.js';
export { extractFields, type ExtractedFields, type ExtractOptions } from './fields.js';
export { layoutOfText, layoutPage, type DocumentLayout, type LayoutCell, type TextBlock } from './layout.js';
export { checkAddress, POSTCODE_PATTERNS, type GeocodeResult } from './geocode.js';
export { closeOcrWorker, recognizeText, skewDegrees } from './ocr.js';
export { elaAnalysis, elaTamperScore, type ElaAnalysis } from './tamper.js';
