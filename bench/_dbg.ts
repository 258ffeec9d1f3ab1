import { readFile } from 'node:fs/promises';
import { readMrz } from '../src/engines/document/mrz-reader.js';
for (const f of process.argv.slice(2)) {
  const r = await readMrz(await readFile(f));
  console.log(f, r?.valid, r?.lines, r?.nameConfidence);
}
