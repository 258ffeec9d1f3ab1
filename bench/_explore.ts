import sharp from 'sharp';
import { readFile } from 'node:fs/promises';
const mod = await import('@gutenye/ocr-node');
const ocr = await mod.default.create();
const files = process.argv.slice(2);
for (const f of files) {
  const bytes = await readFile(f);
  const meta = await sharp(bytes).metadata();
  console.log('==', f, meta.width, meta.height);
  const variants: [string, () => Promise<Buffer>][] = [];
  for (const w of [1200, 1600, 2000, 2400]) {
    variants.push([`lanczos ${w}`, () => sharp(bytes).resize({ width: w }).png().toBuffer()]);
    variants.push([`lanczos ${w} grey norm sharpen`, () => sharp(bytes).resize({ width: w }).greyscale().normalise().sharpen().png().toBuffer()]);
    variants.push([`cubic ${w}`, () => sharp(bytes).resize({ width: w, kernel: 'cubic' }).png().toBuffer()]);
    variants.push([`mitchell ${w} grey`, () => sharp(bytes).resize({ width: w, kernel: 'mitchell' }).greyscale().png().toBuffer()]);
  }
  for (const [name, make] of variants) {
    const lines = await ocr.detect(await make());
    const mrz = lines.filter((l: any) => l.text.includes('<')).map((l: any) => `${l.text} (${l.mean.toFixed(2)})`);
    console.log(name.padEnd(32), mrz.join(' | '));
  }
}
