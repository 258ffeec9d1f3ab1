/**
 * The fonts of the case report. PDF's standard fonts (Helvetica) encode only Latin-1, so a name
 * like "Łukasz", "Ольга", "Νίκος", "王小明" or "محمد" came out as wrong glyphs. The report embeds
 * DejaVu Sans (package `dejavu-fonts-ttf`, the Bitstream Vera licence: free to embed and
 * redistribute) for Latin with every accent, Greek, Cyrillic, Armenian, Georgian, Hebrew and
 * Arabic, and Noto Sans SC's simplified-Chinese subset (package `@fontsource/noto-sans-sc`, SIL
 * Open Font License 1.1) for Han characters (simplified and the common traditional ones), kana and
 * CJK punctuation. Hangul and the scripts of India and South-East Asia are not covered. pdfkit
 * embeds only the glyphs a report uses.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The font files, resolved once from their packages. */
export const REPORT_FONT_FILES = {
  regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
  cjk: require.resolve('@fontsource/noto-sans-sc/files/noto-sans-sc-chinese-simplified-400-normal.woff'),
} as const;

/** Which font draws a run of text: the Latin/Greek/Cyrillic/Arabic one, or the CJK one. */
export type FontFace = 'text' | 'cjk';

/** One run of text drawn with one font in one direction. */
export interface TextRun {
  text: string;
  face: FontFace;
  /** True for Arabic and Hebrew runs: the font engine orders their glyphs right to left. */
  rtl: boolean;
}

/** Characters the CJK font draws: Han ideographs, kana, CJK punctuation and full-width forms. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;
/** Characters of a right-to-left script. */
const RTL = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;
/** Characters that take the direction of what surrounds them (spaces, joiners, marks between words). */
const NEUTRAL = /[\s\u200c\u200d\p{M}]/u;

/**
 * Splits a line into runs the PDF draws one after another, left to right: CJK characters with the
 * CJK font, a stretch of Arabic or Hebrew words with its words in right-to-left order inside the
 * left-to-right line, and everything else with DejaVu.
 */
export function textRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  const chars = [...text];
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index]!;
    let face: FontFace = CJK.test(char) ? 'cjk' : 'text';
    let rtl = RTL.test(char);
    const last = runs.at(-1);
    if (last && NEUTRAL.test(char) && last.rtl) {
      // A space inside an RTL stretch stays in it only when more RTL text follows before any other letter.
      const next = chars.slice(index + 1).find((candidate) => !NEUTRAL.test(candidate));
      if (next !== undefined && RTL.test(next)) {
        last.text += char;
        continue;
      }
      face = 'text';
      rtl = false;
    }
    if (last && last.face === face && last.rtl === rtl) last.text += char;
    else runs.push({ text: char, face, rtl });
  }
  return runs.flatMap(visualOrder);
}

/**
 * A right-to-left stretch as pieces in the order they are drawn, left to right: its words last
 * to first, each word a run of its own (the font engine shapes it and orders its letters), the
 * spaces between them as plain runs. pdfkit wraps lines at spaces, so a stretch given whole had
 * its space dropped and its words run together.
 */
function visualOrder(run: TextRun): TextRun[] {
  if (!run.rtl) return [run];
  return run.text
    .split(/(\s+)/u)
    .filter(Boolean)
    .reverse()
    .map((piece) => ({ text: piece, face: run.face, rtl: !/^\s+$/u.test(piece) }));
}
