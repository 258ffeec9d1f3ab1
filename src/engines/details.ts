/**
 * The `details` shape of each node type's result. Live and sandbox engines both produce these,
 * so clients parse one shape whichever key they use. Type aliases (not interfaces) so they fit
 * `NodeResult.details`.
 */
import type { PadFinding } from './face/pad.js';
import type { RecaptureFinding } from './document/recapture.js';
import type { DocumentBarcodeDetails } from './document/barcodes.js';

import type { AmlQuery, HitExplanation } from './aml/score.js';
import type { StoredDetails } from './stored-details.js';

/** Outcome of one check inside a node; `warning` passes but is listed, `skipped` was not run. */
export type CheckOutcome = 'passed' | 'failed' | 'review' | 'warning' | 'skipped';

/** Checks of an ID document (spec "ID verification result"). */
export type DocumentChecks = {
  /** Security features and tamper analysis. */
  documentAuthentic: CheckOutcome;
  /** MRZ check digits and agreement with the visual zone. */
  mrzMatch: CheckOutcome;
  /** The document is not expired. */
  expiryCheck: CheckOutcome;
  /** Chip signature; `skipped` unless NFC was enabled and read. */
  nfcSignature: CheckOutcome;
};

/** Details of `document_verification`. */
export type DocumentVerificationDetails = {
  /** Machine-readable summary (`clear`, `document_expired`, ...). */
  resultCode: string;
  /** Same values as the input `id_type`. */
  documentType: string;
  /** ISO-2 issuing country. */
  issuingCountry: string;
  /** Per-check outcomes. */
  checks: DocumentChecks;
  /** Fields read from the document; null when unreadable. */
  extracted: {
    /** Given name. */
    firstName: string | null;
    /** Family name. */
    lastName: string | null;
    /** `YYYY-MM-DD`. */
    dateOfBirth: string | null;
    /** Document number. */
    documentNumber: string | null;
    /** `YYYY-MM-DD`; the century chosen as docs/id-verification.md says. */
    expiryDate: string | null;
    /** Nationality of the holder, ISO-2 (the MRZ's nationality field); null for codes naming no country. What AML screening narrows by. */
    nationality: string | null;
    /** Nationality code as printed in the MRZ (ICAO alpha-3 such as `FRA`, or `D`, `UTO`, `XXA`). */
    nationalityCode: string | null;
    /** Issuing state code as printed in the MRZ (ICAO alpha-3). */
    issuingState: string | null;
    /** `M`, `F` or `X`; null when unspecified. */
    sex: string | null;
    /** MRZ document code: `P`, `I`, `ID`, `A`, `C`, `V`, … */
    documentCode: string | null;
    /** MRZ layout: `TD1`, `TD2`, `TD3`, `MRVA` or `MRVB`. */
    mrzFormat: string | null;
    /** Family name as the visual zone prints it (accents kept, `MÜLLER` beside the MRZ's `MUELLER`); absent when not read. */
    lastNameViz?: string | null;
    /** Given names as the visual zone prints them; absent when not read. */
    firstNameViz?: string | null;
    /** Where the fields come from: `mrz`; `viz` when no MRZ was read and the printed page was (lower confidence); `barcode` for a US or Canadian licence or ID card read from its AAMVA PDF417. Absent: `mrz`. */
    source?: 'mrz' | 'viz' | 'barcode';
  };
  /** The visual zone's comparison with the MRZ: fields read there, fields compared, and those that differ (`viz_mrz_mismatch`). */
  viz?: {
    fields: Record<string, string | null>;
    /** Where the visual zone was looked for: `located` above the MRZ (or on a separate front), `mrz_side_only` (a TD1 card's MRZ side: no VIZ to compare on it), `unlocated` (MRZ lines not placed: the whole page by captions). */
    zone?: 'located' | 'mrz_side_only' | 'unlocated';
    compared: string[];
    mismatches: { field: string; viz: string; mrz: string }[];
  };
  /** Live engine: the barcodes read (AAMVA PDF417, ICAO visible digital seal), their fields and their comparison with the front (docs/id-verification.md, "Barcodes"). */
  barcode?: DocumentBarcodeDetails;
  /** Live engine: whether the front image is a re-capture of a screen or a print, with each named signal (src/engines/document/recapture.ts). */
  recapture?: RecaptureFinding;
};

/** The `document_verification` details as a session keeps them (the spec's snake_case). */
export type StoredDocumentVerificationDetails = StoredDetails<DocumentVerificationDetails>;

/** Details of `biometric_kyc`, as the engines return them; kept as `StoredDetails<BiometricKycDetails>` (src/engines/stored-details.ts). */
export type BiometricKycDetails = {
  /** Machine-readable summary. */
  resultCode: string;
  /** Per-check outcomes. */
  checks: {
    /** A live person, not a photo of a photo or a mask. */
    liveness: CheckOutcome;
    /** The selfie matches the document portrait. */
    faceMatch: CheckOutcome;
  };
  /** Cosine similarity between selfie and portrait templates, 0 to 1. */
  similarity: number;
  /** Live engine: the presentation-attack finding with each named signal (src/engines/face/pad.ts, docs/fraud.md). */
  presentationAttack?: PadFinding;
};

// The AML list names and the score → risk band mapping have one home, the AML engine core;
// re-exported here so sandbox and live engines read them from the same place as the details shape.
export { AML_LISTS, type AmlList } from './aml/entity.js';
export { riskBand } from './aml/score.js';

/** One potential match in an AML screening (the spec leaves its shape open), as the engines return it; kept as {@link StoredAmlHit}. */
export type AmlHit = {
  /** List the entry belongs to. */
  list: string;
  /** Entry id within that list. */
  entryId: string;
  /** Kind of risk the list represents. */
  category: 'sanctions' | 'pep' | 'adverse_media';
  /** The name as the list spells it. */
  matchedName: string;
  /** Strength of this match, 0 to 100; the screening score is the highest of these. */
  score: number;
  /** Why it scored so: the listed form and tokens that matched, date of birth and country points (live engine only). */
  explanation?: HitExplanation;
};

/** Whom an AML screening screened: name, and date of birth and country when known. */
export type AmlSubject = { full_name: string; date_of_birth?: string; country?: string };

/**
 * Where the screened identity came from: the document read by the workflow's document node, or
 * the data the end user typed (workflows without a document node). See src/sessions/aml-subject.ts.
 */
export type AmlScreenedSource = 'document' | 'submitted_data';

/** Details of `aml_screening` (spec "AML result"), as the engines return them; a session keeps them as {@link StoredAmlScreeningDetails}. */
export type AmlScreeningDetails = {
  /** Machine-readable summary. */
  resultCode: string;
  /** 0 to 100; at or above the workflow threshold the session declines. */
  score: number;
  /** 1 (low) to 5 (high), derived from `score` by `riskBand` (src/engines/aml/score.ts). */
  riskBand: number;
  /** Potential matches. */
  hits: AmlHit[];
  /** Exactly the lists screened. */
  checkedLists: string[];
  /** Who was screened, kept (as `full_name`, `date_of_birth`, `country`) so ongoing monitoring can screen the same subject again after a list import. */
  subject?: AmlQuery;
};

/** A hit as a session keeps it (the spec's snake_case), marked when ongoing monitoring found it (src/engines/aml/dispositions.ts). */
export type StoredAmlHit = StoredDetails<AmlHit> & { found_by?: 'monitoring'; found_at?: string };

/** A hit a standing false positive took out of a screening, with the disposition that did. */
export type SuppressedAmlHit = StoredAmlHit & { disposition_id: string };

/** The `aml_screening` details as a session keeps them: the engine's, in snake_case, with what the session layer adds. */
export type StoredAmlScreeningDetails = Omit<StoredDetails<AmlScreeningDetails>, 'hits'> & {
  /** Potential matches. */
  hits: StoredAmlHit[];
  /** Hits a reviewer's standing false positive for the same person took out (src/sessions/aml-dispositions.ts). */
  suppressed_hits?: SuppressedAmlHit[];
  /** Where `subject` came from. */
  screened_source?: AmlScreenedSource;
  /** Screened from the document: what the end user typed, compared with `subject` (differences are warnings). */
  submitted_data?: AmlSubject;
};

/** Details of `phone_verification`, as the engines return them; kept as `StoredDetails<PhoneVerificationDetails>` (src/engines/stored-details.ts). */
export type PhoneVerificationDetails = {
  /** Machine-readable summary. */
  resultCode: string;
  /** The E.164 number that was verified. */
  phone: string;
  /** Per-check outcomes. */
  checks: {
    /** The code typed matches the code sent. */
    codeMatch: CheckOutcome;
    /** The line is not a disposable or high-risk number. */
    lineRisk: CheckOutcome;
  };
};

/** Details of `proof_of_address` (spec "Proof-of-address result"), as the engines return them; kept as `StoredDetails<ProofOfAddressDetails>` (src/engines/stored-details.ts). */
export type ProofOfAddressDetails = {
  /** Machine-readable summary. */
  resultCode: string;
  /** Fields read from the document. */
  extracted: {
    /** Addressee. */
    name: string;
    /** Postal address as printed. */
    address: string;
    /** Utility, bank or authority that issued the document. */
    issuer: string;
    /** `YYYY-MM-DD`. */
    issuedAt: string;
  };
  /** Per-check outcomes. */
  checks: {
    /** Addressee equals `expected_name`; `skipped` when none was given. */
    nameMatch: CheckOutcome;
    /** The address exists. */
    geocode: CheckOutcome;
    /** Issued no more than `max_age_days` ago. */
    freshness: CheckOutcome;
    /** Likelihood of editing, 0 (clean) to 1 (certainly edited). */
    tamperScore: number;
  };
  /** How `tamper_score` was computed (live engine only): `ela`, `pdf_structure` or `pdf_structure+ela`; see docs/poa.md. */
  tamperMethod?: string;
  /** Where the text came from (live engine only): `image_ocr`, `pdf_text` or `pdf_scan_ocr`. */
  textSource?: string;
  /** Why `geocode` came out as it did (live engine only), e.g. `postcode_valid`, `postcode_missing`. */
  geocodeReason?: string;
};

/** Details of `business_registry`, as the engine returns them; kept as `StoredDetails<BusinessRegistryDetails>` (src/engines/stored-details.ts). */
export type BusinessRegistryDetails = {
  /** Machine-readable summary. */
  resultCode: string;
  /** The registry record; null when no company was found. */
  company: {
    /** Name as registered. */
    name: string;
    /** Registration number. */
    registrationNumber: string;
    /** ISO-2 registry country. */
    country: string;
    /** Registry status. */
    status: 'active' | 'dormant' | 'dissolved';
    /** `YYYY-MM-DD`. */
    incorporatedOn: string;
  } | null;
  /** Per-check outcomes. */
  checks: {
    /** A company with this number exists. */
    registryFound: CheckOutcome;
    /** The company is active. */
    companyActive: CheckOutcome;
    /** The declared name equals the registered one. */
    nameMatch: CheckOutcome;
  };
};
