/**
 * NFC passive authentication of an ePassport chip (ICAO 9303 Part 11): the client reads the chip
 * and sends the Document Security Object (SOD, a CMS SignedData over the data-group hashes) with
 * DG1 (the MRZ) and optionally DG2 (the portrait).
 *
 * Not implemented yet: verifying the SOD needs a CMS/ASN.1 library (pkijs + asn1js) that is not
 * installed. Until it is, every result is `skipped` with the reason, never `passed`, so no client
 * is told a chip was verified when it was not.
 */
import type { CheckOutcome } from '../details.js';

/** Chip data read by the client, each data group base64 as read from the chip. */
export interface NfcPassiveAuthenticationData {
  /** EF.SOD: the Document Security Object (tag 0x77 wrapping a CMS SignedData). */
  sod: string;
  /** EF.DG1: the MRZ as stored on the chip. */
  dg1: string;
  /** EF.DG2: the encoded portrait, when read. */
  dg2?: string;
}

/** Outcome of passive authentication. */
export interface NfcVerification {
  /** `passed` (signature and hashes hold, DG1 equals the printed MRZ), `failed`, or `skipped`. */
  outcome: CheckOutcome;
  /** Why the check was skipped or failed, for the warnings list. */
  reason?: string;
}

/** Verifies chip data against the printed MRZ; see the module comment for why this skips for now. */
export function verifyPassiveAuthentication(data: NfcPassiveAuthenticationData | undefined): NfcVerification {
  if (data === undefined) return { outcome: 'skipped' };
  return { outcome: 'skipped', reason: 'NFC passive authentication is not available on this server yet; the chip data was not verified.' };
}
