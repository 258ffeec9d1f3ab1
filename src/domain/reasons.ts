/**
 * The reason catalogue (issue 24): every way a step or a session can fail or go to review, under
 * one stable code with a category, a severity, whether the person can fix it (retry) or not
 * (final), a sentence for reviewers and a short one for the person in each language of the hosted
 * flow. Engines emit these codes as `result_code` or warning codes, the verdict names them as each
 * reason's `cause`, reviewers decline and ask for retakes with them, and tenants add their own
 * beside them (`reason_codes` table). Pure data and lookups; no I/O.
 *
 * Longer than ~400 lines on purpose: it is a table (one entry per code, then the person's
 * sentences per language), kept in one file so a new code, its category and all its sentences
 * are reviewed together, and a missing language is a type error.
 */

/** What a reason is about; dashboards and the console group by it. */
export const REASON_CATEGORIES = ['document', 'face', 'fraud', 'screening', 'data', 'technical'] as const;
/** One category of reasons. */
export type ReasonCategory = (typeof REASON_CATEGORIES)[number];

/** How bad a reason is for the case, lowest first: reviewers sort and filter on it. */
export const REASON_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
/** One severity. */
export type ReasonSeverity = (typeof REASON_SEVERITIES)[number];

/** Languages the person's sentences are written in: the hosted flow's (src/web/shared/i18n.ts, a test keeps them equal). */
export const REASON_LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
/** One language of the person's sentences. */
export type ReasonLanguage = (typeof REASON_LANGUAGES)[number];

/**
 * What the person is told, by theme: many codes share one honest sentence, and a fraud signal's
 * details never reach the person (a tampered document reads "we could not verify your document").
 */
export const END_USER_MESSAGES = [
  'photo_unreadable',
  'mrz_unreadable',
  'barcode_unreadable',
  'document_expired',
  'wrong_document',
  'document_unsupported',
  'document_not_verified',
  'address_document_old',
  'address_document_unreadable',
  'face_unclear',
  'face_mismatch',
  'details_mismatch',
  'checks_incomplete',
  'phone_not_confirmed',
  'company_not_verified',
  'manual_check',
  'technical',
  'not_verified',
] as const;
/** One theme of the person's sentences. */
export type EndUserMessage = (typeof END_USER_MESSAGES)[number];

/** One code of the catalogue. */
export interface ReasonDefinition {
  /** Stable machine-readable code (snake_case); never changes meaning. */
  code: string;
  category: ReasonCategory;
  severity: ReasonSeverity;
  /** true: the person can fix it by doing the step again (a retake while attempts remain); false: final. */
  retryable: boolean;
  /** What a reviewer reads in the queue, the case header and the timeline. */
  reviewer: string;
  /** The theme of what the person reads (see {@link endUserMessage}). */
  endUser: EndUserMessage;
}

type Entry = [category: ReasonCategory, severity: ReasonSeverity, retryable: 'retry' | 'final', reviewer: string, endUser: EndUserMessage];

/** The catalogue, by code. Add a code here before an engine emits it (test/domain/reasons.test.ts checks). */
const ENTRIES: Record<string, Entry> = {
  // The photo could not be read: a retake fixes it.
  image_too_small: ['document', 'low', 'retry', 'The document photo is too small to read.', 'photo_unreadable'],
  image_blurry: ['document', 'low', 'retry', 'The document photo is too blurred to read.', 'photo_unreadable'],
  image_too_dark: ['document', 'low', 'retry', 'The document photo is too dark to read.', 'photo_unreadable'],
  glare: ['document', 'low', 'retry', 'Glare hides part of the document.', 'photo_unreadable'],
  image_quality_low: ['document', 'low', 'retry', 'The document photo is of low quality.', 'photo_unreadable'],
  mrz_not_found: ['document', 'low', 'retry', 'No machine-readable zone (MRZ) could be found on the document.', 'mrz_unreadable'],
  barcode_unreadable: [
    'document',
    'low',
    'retry',
    'The PDF417 barcode on the back of the US or Canadian licence or ID card could not be read.',
    'barcode_unreadable',
  ],
  // The document itself.
  document_expired: ['document', 'high', 'retry', 'The document has expired.', 'document_expired'],
  document_type_mismatch: ['document', 'medium', 'retry', 'The document is not of the type the person chose.', 'wrong_document'],
  country_mismatch: ['document', 'medium', 'retry', 'The issuing country differs from the one chosen or expected.', 'wrong_document'],
  unknown_issuing_state: [
    'document',
    'medium',
    'retry',
    'The MRZ names an issuing state that is not a known ICAO code.',
    'document_unsupported',
  ],
  mrz_mismatch: ['document', 'high', 'final', 'The MRZ check digits do not add up: misread or altered.', 'document_not_verified'],
  mrz_name_unconfirmed: [
    'document',
    'low',
    'final',
    'The name in the MRZ could not be confirmed against the printed name.',
    'manual_check',
  ],
  barcode_invalid: [
    'document',
    'medium',
    'final',
    'The document barcode was read but is not valid AAMVA data or a valid seal.',
    'manual_check',
  ],
  vds_certificate_unknown: [
    'technical',
    'low',
    'final',
    "The digital seal's signer certificate is not configured, so its signature was not verified.",
    'manual_check',
  ],
  unknown_nationality: ['document', 'low', 'final', 'The MRZ nationality is not a known code.', 'manual_check'],
  historic_state_code: ['document', 'low', 'final', 'The MRZ issuing state is a withdrawn code.', 'manual_check'],
  nonstandard_state_code: ['document', 'low', 'final', 'The MRZ issuing state is an ISO-2 code, not ICAO alpha-3.', 'manual_check'],
  manual_review_required: ['document', 'medium', 'final', 'The document check asks for a person to look at it.', 'manual_check'],
  document_identity_unavailable: ['document', 'medium', 'final', 'The document gave no identity to screen.', 'manual_check'],
  csca_not_configured: [
    'technical',
    'low',
    'final',
    'The chip signature is valid but no country signing certificate is configured to trust it.',
    'manual_check',
  ],
  // Proof of address.
  document_too_old: ['document', 'medium', 'retry', 'The proof of address is older than the workflow accepts.', 'address_document_old'],
  issue_date_unreadable: [
    'document',
    'low',
    'retry',
    'The issue date of the proof of address could not be read.',
    'address_document_unreadable',
  ],
  issue_date_in_future: ['document', 'medium', 'final', 'The proof of address is dated in the future.', 'manual_check'],
  issuer_not_found: ['document', 'low', 'final', 'No known issuer could be found on the proof of address.', 'manual_check'],
  address_unverifiable: ['data', 'medium', 'final', 'The address could not be confirmed as a real place.', 'manual_check'],
  // Fraud signals: the person is never told which one.
  document_tampered: ['fraud', 'critical', 'final', 'The document shows signs of tampering.', 'document_not_verified'],
  tamper_suspected: ['fraud', 'high', 'final', 'The document may have been edited.', 'document_not_verified'],
  nfc_signature_invalid: ['fraud', 'critical', 'final', "The chip's signature is invalid.", 'document_not_verified'],
  nfc_certificate_untrusted: [
    'fraud',
    'high',
    'final',
    "The chip's certificate does not chain to a trusted country signing certificate.",
    'document_not_verified',
  ],
  nfc_hash_mismatch: ['fraud', 'critical', 'final', "The chip's data does not match its signed hashes.", 'document_not_verified'],
  nfc_mrz_mismatch: ['fraud', 'critical', 'final', 'The MRZ stored in the chip differs from the printed one.', 'document_not_verified'],
  specimen_state_code: ['fraud', 'high', 'final', 'The document is a specimen (fictional issuing state).', 'document_not_verified'],
  viz_mrz_mismatch: ['fraud', 'high', 'final', 'The printed visual zone disagrees with the MRZ.', 'document_not_verified'],
  barcode_front_mismatch: [
    'fraud',
    'high',
    'final',
    'The document barcode disagrees with the front of the document.',
    'document_not_verified',
  ],
  vds_signature_invalid: ['fraud', 'critical', 'final', "The digital seal's signature is invalid.", 'document_not_verified'],
  fields_from_visual_zone: [
    'document',
    'low',
    'final',
    'The MRZ could not be read: the fields come from the printed page, with lower confidence.',
    'manual_check',
  ],
  document_recapture: ['fraud', 'high', 'final', 'The document was photographed from a screen or a printed copy.', 'document_not_verified'],
  duplicate_document: ['fraud', 'high', 'final', 'The same document number and country were used under another user id.', 'not_verified'],
  selfie_matches_document_portrait: ['fraud', 'critical', 'final', "The selfie is the document's own portrait.", 'not_verified'],
  selfie_reused: ['fraud', 'high', 'final', 'The selfie is identical to one already submitted.', 'not_verified'],
  duplicate_face: ['fraud', 'high', 'final', 'The same face was submitted under another user id.', 'not_verified'],
  presentation_attack: ['fraud', 'high', 'retry', 'The selfie shows a print, a screen or a cut-out.', 'face_unclear'],
  capture_integrity: ['fraud', 'high', 'final', 'The capture does not come from a real camera as the workflow demands.', 'not_verified'],
  suspected_fraud: ['fraud', 'critical', 'final', 'A reviewer judged the case fraudulent.', 'not_verified'],
  high_risk_line: ['fraud', 'medium', 'final', 'The phone number is a high-risk line (virtual or disposable).', 'phone_not_confirmed'],
  // The face.
  face_mismatch: ['face', 'high', 'final', 'The selfie does not match the document portrait.', 'face_mismatch'],
  liveness_failed: ['face', 'medium', 'retry', 'The selfie did not pass the liveness check.', 'face_unclear'],
  active_liveness_failed: ['face', 'medium', 'retry', 'The head movements did not follow the challenge.', 'face_unclear'],
  active_liveness_alternative: [
    'face',
    'low',
    'final',
    'The person used the non-motion alternative to the liveness challenge.',
    'manual_check',
  ],
  face_match_inconclusive: [
    'face',
    'medium',
    'final',
    'The selfie and the document portrait neither clearly match nor clearly differ.',
    'manual_check',
  ],
  liveness_inconclusive: ['face', 'medium', 'final', 'The liveness check was inconclusive.', 'manual_check'],
  document_portrait_unusable: [
    'face',
    'medium',
    'final',
    'The document shows no face clear enough to compare with the selfie.',
    'manual_check',
  ],
  document_portrait_missing: ['face', 'medium', 'final', 'There is no document portrait to compare the selfie with.', 'manual_check'],
  // Screening.
  sanctions_match: [
    'screening',
    'critical',
    'final',
    'The person matches a sanctions list entry at or above the threshold.',
    'checks_incomplete',
  ],
  possible_sanctions_match: ['screening', 'high', 'final', 'The person may match a sanctions list entry.', 'manual_check'],
  pep_match: ['screening', 'medium', 'final', 'The person matches a politically exposed person.', 'manual_check'],
  adverse_media_match: ['screening', 'medium', 'final', 'The person matches adverse media.', 'manual_check'],
  aml_new_hit: ['screening', 'high', 'final', 'Ongoing monitoring found a new screening hit.', 'manual_check'],
  aml_score_at_or_above_threshold: [
    'screening',
    'critical',
    'final',
    "The screening score is at or above the workflow's threshold.",
    'checks_incomplete',
  ],
  list_auto_decline: ['screening', 'critical', 'final', 'The data matched an entry of a list that declines.', 'not_verified'],
  list_review: ['screening', 'medium', 'final', 'The data matched an entry of a list that asks for review.', 'manual_check'],
  // The person's data.
  name_mismatch: ['data', 'medium', 'final', 'The name differs from the expected one.', 'details_mismatch'],
  date_of_birth_mismatch: ['data', 'medium', 'final', 'The date of birth differs from the expected one.', 'details_mismatch'],
  document_number_mismatch: ['data', 'medium', 'final', 'The document number differs from the expected one.', 'details_mismatch'],
  aml_document_mismatch: ['data', 'medium', 'final', 'The details typed for screening differ from the document.', 'details_mismatch'],
  code_mismatch: ['data', 'low', 'final', 'The phone code was wrong.', 'phone_not_confirmed'],
  attempts_exhausted: ['data', 'medium', 'final', 'Every attempt at the phone code was used.', 'phone_not_confirmed'],
  company_not_found: ['data', 'high', 'final', 'The company could not be found in the registry.', 'company_not_verified'],
  company_dormant: ['data', 'medium', 'final', 'The company is dormant.', 'company_not_verified'],
  company_dissolved: ['data', 'high', 'final', 'The company is dissolved.', 'company_not_verified'],
  // The session's own rules (the verdict names these when nothing more precise is known).
  awaiting_document: ['data', 'low', 'final', 'The screening waits for the document result.', 'manual_check'],
  required_node_skipped: ['data', 'medium', 'final', 'A required step was skipped.', 'manual_check'],
  required_node_pending: ['technical', 'low', 'final', 'A required step has no result yet.', 'manual_check'],
  // A workflow rule (src/domain/workflow-rules.ts) decided without naming a more precise code.
  rule_decline: ['data', 'high', 'final', "A rule of the session's workflow declined it.", 'not_verified'],
  rule_review: ['data', 'medium', 'final', "A rule of the session's workflow asked for a manual review.", 'manual_check'],
  underage: ['data', 'high', 'final', 'The person is younger than the workflow accepts.', 'not_verified'],
  rule_approve: ['data', 'low', 'final', "A rule of the session's workflow approved what would have gone to review.", 'manual_check'],
  step_failed: ['technical', 'medium', 'final', 'A step failed without a more precise reason.', 'not_verified'],
  step_review: ['technical', 'medium', 'final', 'A step asked for a manual review without a more precise reason.', 'manual_check'],
  reviewer_request: ['technical', 'low', 'retry', 'A reviewer asked the person to do a step again.', 'manual_check'],
  imported_for_review: ['technical', 'low', 'final', "Imported from a partner without trusting the partner's review.", 'manual_check'],
  session_expired: ['technical', 'low', 'final', 'The session expired before it was completed.', 'technical'],
  engine_error: ['technical', 'medium', 'retry', 'A check could not run.', 'technical'],
};

/** Every code of the built-in catalogue, with its definition, in the table's order. */
export const REASON_CATALOGUE: readonly ReasonDefinition[] = Object.entries(ENTRIES).map(
  ([code, [category, severity, retryable, reviewer, endUser]]) => ({
    code,
    category,
    severity,
    retryable: retryable === 'retry',
    reviewer,
    endUser,
  }),
);

const BY_CODE = new Map(REASON_CATALOGUE.map((definition) => [definition.code, definition]));

/** The built-in definition of a code, or undefined when the catalogue lacks it. */
export function builtInReason(code: string): ReasonDefinition | undefined {
  return BY_CODE.get(code);
}

/**
 * The definition of a code: built-in first, then the tenant's own (`custom`), else a technical,
 * final stand-in so an unknown code still reads as something (and the catalogue test catches it).
 */
export function reasonDefinition(code: string, custom: readonly ReasonDefinition[] = []): ReasonDefinition {
  return (
    BY_CODE.get(code) ??
    custom.find((definition) => definition.code === code) ?? {
      code,
      category: 'technical',
      severity: 'medium',
      retryable: false,
      reviewer: `Reason ${code}.`,
      endUser: 'not_verified',
    }
  );
}

/** Whether a failed step with this result code may be done again while attempts remain (retake instead of a decline). */
export function isRetryable(code: string): boolean {
  return BY_CODE.get(code)?.retryable ?? false;
}

/** The code shape every catalogue and tenant code follows: snake_case, 3 to 64 characters. */
export const REASON_CODE_PATTERN = /^[a-z][a-z0-9_]{2,63}$/;

/** What the person reads, per theme and language: short, honest, and never a fraud signal's details. */
export const END_USER_SENTENCES: Record<ReasonLanguage, Record<EndUserMessage, string>> = {
  en: {
    photo_unreadable: 'We could not read the photo. Take it again, flat, sharp and in good light.',
    mrz_unreadable:
      'We could not read the lines at the bottom of the document. Make sure they are fully in the photo, sharp and without glare.',
    barcode_unreadable:
      'We could not read the barcode on the back of your card. Photograph the back flat, filling the frame, in even light, with the whole barcode sharp and without glare.',
    document_expired: 'This document has expired. Please use a document that is still valid.',
    wrong_document: 'This document does not match the type or country you chose. Check your choice, or use another document.',
    document_unsupported: 'We could not recognise this document. Please use a passport or an identity card.',
    document_not_verified: 'We could not verify your document.',
    address_document_old: 'This document is too old. Please use one issued in the last few months.',
    address_document_unreadable: 'We could not read the date on this document. Please use a clear photo or the original PDF.',
    face_unclear: 'We could not check your selfie. Face the camera yourself, in good light, with nothing covering your face.',
    face_mismatch: 'Your selfie does not match the photo on your document.',
    details_mismatch: 'The details you gave do not match the ones we expected.',
    checks_incomplete: 'We could not complete the checks needed to verify you.',
    phone_not_confirmed: 'We could not confirm your phone number.',
    company_not_verified: 'We could not verify your company in the official registry.',
    manual_check: 'We need to check a few things by hand.',
    technical: 'Something went wrong on our side.',
    not_verified: 'We could not verify your identity.',
  },
  fr: {
    photo_unreadable: "Nous n'avons pas pu lire la photo. Reprenez-la à plat, nette et bien éclairée.",
    mrz_unreadable:
      "Nous n'avons pas pu lire les lignes en bas du document. Vérifiez qu'elles sont entièrement sur la photo, nettes et sans reflet.",
    barcode_unreadable:
      "Nous n'avons pas pu lire le code-barres au dos de votre carte. Photographiez le dos à plat, en remplissant le cadre, sous une lumière uniforme, le code-barres entier net et sans reflet.",
    document_expired: 'Ce document a expiré. Veuillez utiliser un document encore valide.',
    wrong_document: 'Ce document ne correspond pas au type ou au pays choisi. Vérifiez votre choix ou utilisez un autre document.',
    document_unsupported: "Nous n'avons pas reconnu ce document. Veuillez utiliser un passeport ou une carte d'identité.",
    document_not_verified: "Nous n'avons pas pu vérifier votre document.",
    address_document_old: 'Ce document est trop ancien. Veuillez en utiliser un émis ces derniers mois.',
    address_document_unreadable: "Nous n'avons pas pu lire la date de ce document. Utilisez une photo nette ou le PDF d'origine.",
    face_unclear:
      "Nous n'avons pas pu vérifier votre selfie. Faites face à la caméra vous-même, bien éclairé, sans rien qui couvre le visage.",
    face_mismatch: 'Votre selfie ne correspond pas à la photo de votre document.',
    details_mismatch: 'Les informations données ne correspondent pas à celles attendues.',
    checks_incomplete: "Nous n'avons pas pu effectuer les contrôles nécessaires à votre vérification.",
    phone_not_confirmed: "Nous n'avons pas pu confirmer votre numéro de téléphone.",
    company_not_verified: "Nous n'avons pas pu vérifier votre société dans le registre officiel.",
    manual_check: 'Nous devons vérifier quelques éléments manuellement.',
    technical: 'Un problème est survenu de notre côté.',
    not_verified: "Nous n'avons pas pu vérifier votre identité.",
  },
  de: {
    photo_unreadable: 'Wir konnten das Foto nicht lesen. Nehmen Sie es erneut auf: flach, scharf und bei gutem Licht.',
    mrz_unreadable:
      'Wir konnten die Zeilen unten auf dem Dokument nicht lesen. Achten Sie darauf, dass sie vollständig, scharf und ohne Spiegelung im Bild sind.',
    barcode_unreadable:
      'Wir konnten den Barcode auf der Rückseite Ihrer Karte nicht lesen. Fotografieren Sie die Rückseite flach und bildfüllend bei gleichmäßigem Licht, den ganzen Barcode scharf und ohne Spiegelung.',
    document_expired: 'Dieses Dokument ist abgelaufen. Bitte verwenden Sie ein gültiges Dokument.',
    wrong_document:
      'Dieses Dokument passt nicht zum gewählten Typ oder Land. Prüfen Sie Ihre Auswahl oder verwenden Sie ein anderes Dokument.',
    document_unsupported: 'Wir konnten dieses Dokument nicht erkennen. Bitte verwenden Sie einen Reisepass oder einen Personalausweis.',
    document_not_verified: 'Wir konnten Ihr Dokument nicht prüfen.',
    address_document_old: 'Dieses Dokument ist zu alt. Bitte verwenden Sie eines aus den letzten Monaten.',
    address_document_unreadable:
      'Wir konnten das Datum dieses Dokuments nicht lesen. Verwenden Sie ein scharfes Foto oder das Original-PDF.',
    face_unclear: 'Wir konnten Ihr Selfie nicht prüfen. Schauen Sie selbst in die Kamera, bei gutem Licht und mit freiem Gesicht.',
    face_mismatch: 'Ihr Selfie stimmt nicht mit dem Foto auf Ihrem Dokument überein.',
    details_mismatch: 'Ihre Angaben stimmen nicht mit den erwarteten überein.',
    checks_incomplete: 'Wir konnten die für Ihre Prüfung nötigen Kontrollen nicht abschließen.',
    phone_not_confirmed: 'Wir konnten Ihre Telefonnummer nicht bestätigen.',
    company_not_verified: 'Wir konnten Ihr Unternehmen im amtlichen Register nicht finden.',
    manual_check: 'Wir müssen einige Angaben von Hand prüfen.',
    technical: 'Bei uns ist ein Fehler aufgetreten.',
    not_verified: 'Wir konnten Ihre Identität nicht bestätigen.',
  },
  es: {
    photo_unreadable: 'No hemos podido leer la foto. Vuelva a hacerla, plana, nítida y con buena luz.',
    mrz_unreadable:
      'No hemos podido leer las líneas de la parte inferior del documento. Asegúrese de que salen completas, nítidas y sin reflejos.',
    barcode_unreadable:
      'No hemos podido leer el código de barras del reverso de su tarjeta. Fotografíe el reverso plano, llenando el encuadre, con luz uniforme y el código entero nítido y sin reflejos.',
    document_expired: 'Este documento ha caducado. Utilice un documento vigente.',
    wrong_document: 'Este documento no corresponde al tipo o al país elegido. Revise su elección o utilice otro documento.',
    document_unsupported: 'No hemos reconocido este documento. Utilice un pasaporte o un documento de identidad.',
    document_not_verified: 'No hemos podido verificar su documento.',
    address_document_old: 'Este documento es demasiado antiguo. Utilice uno emitido en los últimos meses.',
    address_document_unreadable: 'No hemos podido leer la fecha de este documento. Utilice una foto nítida o el PDF original.',
    face_unclear: 'No hemos podido comprobar su selfi. Mire usted mismo a la cámara, con buena luz y sin nada que le cubra la cara.',
    face_mismatch: 'Su selfi no coincide con la foto de su documento.',
    details_mismatch: 'Los datos indicados no coinciden con los esperados.',
    checks_incomplete: 'No hemos podido completar las comprobaciones necesarias para verificarle.',
    phone_not_confirmed: 'No hemos podido confirmar su número de teléfono.',
    company_not_verified: 'No hemos podido verificar su empresa en el registro oficial.',
    manual_check: 'Tenemos que comprobar algunos datos manualmente.',
    technical: 'Algo ha fallado por nuestra parte.',
    not_verified: 'No hemos podido verificar su identidad.',
  },
};

/** What the person reads for a code, in a language (tenant codes carry their own theme). */
export function endUserSentence(code: string, language: ReasonLanguage, custom: readonly ReasonDefinition[] = []): string {
  return END_USER_SENTENCES[language][reasonDefinition(code, custom).endUser];
}

/** A reason as stored or computed, before the catalogue explains it. */
export interface ReasonToExplain {
  code: string;
  cause?: string;
  category?: string;
  severity?: string;
  retryable?: boolean;
  reviewerText?: string;
}

/** What the catalogue adds to a decision's reason: the cause's category, severity and whether the person can fix it. */
export interface ReasonExplanation {
  cause: string;
  category: string;
  severity: string;
  retryable: boolean;
  /** The catalogue's sentence for reviewers (a tenant code's own, stored with it). */
  reviewerText: string;
}

/**
 * Explains one decision reason: fields stored with it win (a tenant code keeps its own), then the
 * built-in catalogue; `legacyCause` names the cause of a reason stored before causes existed.
 */
export function explainReason(reason: ReasonToExplain, legacyCause: () => string): ReasonExplanation {
  const cause = reason.cause ?? legacyCause();
  const definition = reasonDefinition(cause);
  return {
    cause,
    category: reason.category ?? definition.category,
    severity: reason.severity ?? definition.severity,
    retryable: reason.retryable ?? definition.retryable,
    reviewerText: reason.reviewerText ?? definition.reviewer,
  };
}
