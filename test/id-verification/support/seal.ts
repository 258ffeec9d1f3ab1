/**
 * ICAO visible digital seals built here for tests (ICAO 9303 Part 13, version 4): header, one MRZ
 * feature, signature `r || s` by the given signer, and their Data Matrix rendered by bwip-js onto a
 * document photo. No real seal of a real document was available under a licence we could use; the
 * seals of another implementation (vdstools' sealgen test seals) are tested beside these.
 */
import bwipjs from 'bwip-js/node';
import sharp from 'sharp';
import { encodeC40, encodeDerLength, encodeVdsDate } from '../../../src/engines/document/vds.js';

/** What a seal says and who signs it. */
export interface SealContent {
  /** Issuing country, ICAO alpha-3. */
  country: string;
  /** 4 characters: the signer certificate's country and CN (`UTTS`). */
  signerIdentifier: string;
  /** The signer certificate's serial number in hex, as the seal references it. */
  certificateReference: string;
  /** `[featureRef, typeCategory]`: `[0x5d, 0x01]` visa, `[0x5e, 0x03]` emergency travel document. */
  documentRef: [number, number];
  /** The MRZ, lines concatenated. */
  mrz: string;
  /** `YYYY-MM-DD`. */
  issued: string;
}

/** The seal's bytes: `sign` receives the header and message and returns `r || s`. */
export async function buildSeal(content: SealContent, sign: (signed: Buffer) => Promise<Buffer> | Buffer): Promise<Buffer> {
  const reference = content.certificateReference.toUpperCase();
  const header = Buffer.concat([
    Buffer.from([0xdc, 0x03]),
    encodeC40(content.country),
    encodeC40(`${content.signerIdentifier}${reference.length.toString(16).padStart(2, '0').toUpperCase()}`),
    encodeC40(reference),
    encodeVdsDate(content.issued),
    encodeVdsDate(content.issued),
    Buffer.from(content.documentRef),
  ]);
  const mrz = encodeC40(content.mrz);
  const signed = Buffer.concat([header, Buffer.from([0x02]), encodeDerLength(mrz.length), mrz]);
  const signature = await sign(signed);
  return Buffer.concat([signed, Buffer.from([0xff]), encodeDerLength(signature.length), signature]);
}

/** A Data Matrix of bytes, as PNG with a white background. */
export async function dataMatrix(bytes: Buffer, modulePx = 3): Promise<Buffer> {
  return bwipjs.toBuffer({
    bcid: 'datamatrix',
    text: bytes.toString('latin1'),
    binarytext: true,
    scale: modulePx,
    paddingwidth: 4,
    paddingheight: 4,
    backgroundcolor: 'FFFFFF',
  } as Parameters<typeof bwipjs.toBuffer>[0]);
}

/** A photo with a seal's Data Matrix printed at (`left`, `top`), at most `sidePx` wide (whole pixels per module). */
export async function withSeal(photo: Buffer, seal: Buffer, left: number, top: number, sidePx = 330): Promise<Buffer> {
  let symbol = await dataMatrix(seal, 1);
  const { width = 1 } = await sharp(symbol).metadata();
  symbol = await dataMatrix(seal, Math.max(1, Math.floor(sidePx / width)));
  return sharp(photo)
    .composite([{ input: symbol, left, top }])
    .png()
    .toBuffer();
}
