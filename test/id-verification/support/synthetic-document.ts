/**
 * Synthetic identity documents for tests and for the MRZ reader measurement: an ICAO 9303 MRZ
 * with correct check digits, rendered in OCR-B (Debian's `fonts-ocr-b`) with sharp (SVG text →
 * raster), optionally degraded like a phone photo. Nothing here is downloaded.
 */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';

/** Identity printed on a synthetic document. */
export interface SyntheticIdentity {
  /** 'TD3' passport (2×44) or 'TD1' ID card (3×30). */
  format: 'TD3' | 'TD1';
  /** ICAO issuing state code (ISO-3, `D` for Germany). */
  issuingState: string;
  /** Family name, A–Z and spaces. */
  lastName: string;
  /** Given names, A–Z and spaces. */
  firstName: string;
  /** Document number, up to 9 characters A–Z 0–9. */
  documentNumber: string;
  /** `YYMMDD`. */
  birthDate: string;
  /** `YYMMDD`. */
  expiryDate: string;
  /** `M`, `F` or `<`. */
  sex?: string;
  /** ISO-3 nationality; the issuing state when omitted. */
  nationality?: string;
  /** Document code; `P<` for TD3, `ID` for TD1 when omitted. */
  documentCode?: string;
}

const WEIGHTS = [7, 3, 1];

/** ICAO 9303 check digit (weights 7-3-1, `<` = 0, A = 10). Written independently of the code under test. */
export function checkDigit(value: string): string {
  let sum = 0;
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    const code = char === '<' ? 0 : /[0-9]/.test(char) ? Number(char) : char.charCodeAt(0) - 55;
    sum += code * WEIGHTS[index % 3];
  }
  return String(sum % 10);
}

/** Pads with `<` to `length`, turning spaces into `<`. */
function field(value: string, length: number): string {
  return value.toUpperCase().replace(/ /g, '<').padEnd(length, '<').slice(0, length);
}

/** The MRZ lines of a synthetic identity, with valid check digits. */
export function mrzLines(identity: SyntheticIdentity): string[] {
  const sex = identity.sex ?? 'F';
  const nationality = field(identity.nationality ?? identity.issuingState, 3);
  const state = field(identity.issuingState, 3);
  const number = field(identity.documentNumber, 9);
  const numberCd = checkDigit(number);
  const birthCd = checkDigit(identity.birthDate);
  const expiryCd = checkDigit(identity.expiryDate);
  if (identity.format === 'TD3') {
    const name = field(`${identity.lastName.replace(/ /g, '<')}<<${identity.firstName.replace(/ /g, '<')}`, 39);
    const line1 = field(identity.documentCode ?? 'P<', 2) + state + name;
    const personal = field('', 14);
    const personalCd = '<';
    const composite = number + numberCd + identity.birthDate + birthCd + identity.expiryDate + expiryCd + personal + personalCd;
    const line2 =
      number +
      numberCd +
      nationality +
      identity.birthDate +
      birthCd +
      sex +
      identity.expiryDate +
      expiryCd +
      personal +
      personalCd +
      checkDigit(composite);
    return [line1, line2];
  }
  const optional1 = field('', 15);
  const line1 = field(identity.documentCode ?? 'ID', 2) + state + number + numberCd + optional1;
  const optional2 = field('', 11);
  const line2Body = identity.birthDate + birthCd + sex + identity.expiryDate + expiryCd + nationality + optional2;
  const composite = line1.slice(5, 30) + line2Body.slice(0, 7) + line2Body.slice(8, 15) + optional2;
  const line2 = line2Body + checkDigit(composite);
  const line3 = field(`${identity.lastName.replace(/ /g, '<')}<<${identity.firstName.replace(/ /g, '<')}`, 30);
  return [line1, line2, line3];
}

/** How to damage a rendered document, to imitate a phone photo. */
export interface Degradation {
  /** Gaussian blur sigma, in pixels of the rendered page. */
  blurSigma?: number;
  /** Standard deviation of additive Gaussian noise, in grey levels (0–255). */
  noiseSigma?: number;
  /** Rotation in degrees (positive is clockwise). */
  rotateDegrees?: number;
  /** Output width in pixels after rendering (downscales the page). */
  widthPx?: number;
  /** JPEG quality 1–100; PNG when omitted. */
  jpegQuality?: number;
  /** Seed-free noise is fine: the tests only use noise for measurements. */
}

const ESCAPE: Record<string, string> = { '<': '&lt;', '&': '&amp;', '>': '&gt;' };
const esc = (text: string) => text.replace(/[<&>]/g, (char) => ESCAPE[char]);

/** Renders the data page as a PNG at 10 px/mm (passport 1250×880, card 856×540). */
async function renderPage(identity: SyntheticIdentity): Promise<Buffer> {
  const lines = mrzLines(identity);
  const td3 = identity.format === 'TD3';
  const [width, height] = td3 ? [1250, 880] : [856, 540];
  // ICAO 9303: characters at 2.54 mm pitch, lines 4.23 mm apart; the MRZ sits at the bottom.
  const pitch = 25.4;
  const lineGap = td3 ? 42.3 : 38;
  const fontSize = 34;
  const left = td3 ? 64 : 47;
  const firstBaseline = height - 40 - lineGap * (lines.length - 1);
  const mrz = lines
    .map((line, row) =>
      [...line]
        .map(
          (char, col) =>
            `<text x="${(left + col * pitch).toFixed(1)}" y="${(firstBaseline + row * lineGap).toFixed(1)}">${esc(char)}</text>`,
        )
        .join(''),
    )
    .join('');
  const title = td3 ? 'PASSPORT' : 'IDENTITY CARD';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#f3efe4"/>
    <rect x="30" y="${td3 ? 120 : 90}" width="${td3 ? 300 : 200}" height="${td3 ? 380 : 260}" fill="#b9b3a6"/>
    <g font-family="DejaVu Sans, sans-serif" fill="#3a3a5a">
      <text x="${td3 ? 380 : 260}" y="70" font-size="40" font-weight="bold">${title}</text>
      <text x="${td3 ? 380 : 260}" y="${td3 ? 160 : 130}" font-size="22">Surname / Nom</text>
      <text x="${td3 ? 380 : 260}" y="${td3 ? 195 : 160}" font-size="30">${esc(identity.lastName)}</text>
      <text x="${td3 ? 380 : 260}" y="${td3 ? 245 : 200}" font-size="22">Given names / Prénoms</text>
      <text x="${td3 ? 380 : 260}" y="${td3 ? 280 : 230}" font-size="30">${esc(identity.firstName)}</text>
      <text x="${td3 ? 380 : 260}" y="${td3 ? 330 : 270}" font-size="22">No. ${esc(identity.documentNumber)}</text>
    </g>
    <g font-family="OCR B" font-size="${fontSize}" fill="#111">${mrz}</g>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** Adds Gaussian noise to 8-bit RGB pixels (Box–Muller on crypto bytes; measurement only). */
function addNoise(pixels: Buffer, sigma: number): Buffer {
  const random = randomBytes(pixels.length * 2);
  const out = Buffer.alloc(pixels.length);
  for (let index = 0; index < pixels.length; index++) {
    const u1 = (random.readUInt8(index * 2) + 1) / 257;
    const u2 = random.readUInt8(index * 2 + 1) / 256;
    const gaussian = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    out[index] = Math.max(0, Math.min(255, Math.round(pixels[index] + gaussian * sigma)));
  }
  return out;
}

/** Renders a synthetic document and degrades it; returns the encoded image (PNG, or JPEG with `jpegQuality`). */
export async function renderDocument(identity: SyntheticIdentity, degradation: Degradation = {}): Promise<Buffer> {
  return degradeImage(await renderPage(identity), degradation);
}

/** Damages a rendered image the way a phone photo does (rotation, downscale, blur, noise, JPEG); other renderers (licences) share it. */
export async function degradeImage(rendered: Buffer, degradation: Degradation = {}): Promise<Buffer> {
  let image = sharp(rendered);
  if (degradation.rotateDegrees) image = sharp(await image.rotate(degradation.rotateDegrees, { background: '#202020' }).png().toBuffer());
  if (degradation.widthPx) image = sharp(await image.resize({ width: degradation.widthPx }).png().toBuffer());
  if (degradation.blurSigma) image = sharp(await image.blur(degradation.blurSigma).png().toBuffer());
  if (degradation.noiseSigma) {
    const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
    image = sharp(addNoise(data, degradation.noiseSigma), { raw: { width: info.width, height: info.height, channels: info.channels } });
  }
  if (degradation.jpegQuality) return image.jpeg({ quality: degradation.jpegQuality }).toBuffer();
  return image.png().toBuffer();
}

/** A `data:` URI of an encoded image. */
export function toDataUri(bytes: Buffer, mimeType = bytes[0] === 0xff ? 'image/jpeg' : 'image/png'): string {
  return `data:${mimeType};base64,${bytes.toString('base64')}`;
}

/** `YYMMDD` of a date `yearsFromNow` years from today (UTC). */
export function yymmdd(yearsFromNow: number, now = new Date()): string {
  const date = new Date(Date.UTC(now.getUTCFullYear() + yearsFromNow, now.getUTCMonth(), Math.min(now.getUTCDate(), 28)));
  return date.toISOString().slice(2, 10).replace(/-/g, '');
}

/** The passport most engine tests render: Claire Anne Martin, France, valid five more years from `now`. */
export function samplePassport(now = new Date()): SyntheticIdentity {
  return {
    format: 'TD3',
    issuingState: 'FRA',
    lastName: 'MARTIN',
    firstName: 'CLAIRE ANNE',
    documentNumber: '18FR04512',
    birthDate: '850412',
    expiryDate: yymmdd(5, now),
  };
}

/** A holder on no list (Ada Lovelace, GB) whose document number the OCR reads reliably, for session tests. */
export function unlistedHolder(now = new Date()): SyntheticIdentity {
  return {
    format: 'TD3',
    issuingState: 'GBR',
    lastName: 'LOVELACE',
    firstName: 'ADA',
    documentNumber: 'L0V3L4C31',
    birthDate: '851210',
    expiryDate: yymmdd(5, now),
    sex: 'F',
  };
}
