/**
 * Labelled face crops cut from the screenshots shipped in `@vladmandic/human/assets/`, the only
 * face photos in our installed packages. Used by `bench/face-thresholds.ts` to measure the
 * same/different similarity distributions and by the face tests. Nothing is downloaded and no
 * image is committed: crops are cut with sharp at run time.
 *
 * Identities: every crop labelled `author` shows human's author (his own demo photos: the
 * first row of the face-match grid, the FaceID webcam frame, the first face-detect crop and
 * the dinner photo of samples.jpg), checked by eye. `other` crops are other people; they are
 * not labelled one from another (the demo's group photos may repeat a person), so pairs of two
 * `other` crops are reported apart as "unlabelled".
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';

const require = createRequire(import.meta.url);
/** Folder of human's shipped assets (screenshots with faces). */
export const HUMAN_ASSETS_DIR = path.resolve(path.dirname(require.resolve('@vladmandic/human')), '..', 'assets');

/** One crop of one asset. */
export interface FaceSample {
  /** Stable name (`g<row>_<col>` for grid cells). */
  name: string;
  /** `author` or `other` (see the module comment). */
  identity: 'author' | 'other';
  /** Asset file name in `HUMAN_ASSETS_DIR`. */
  file: string;
  /** Crop rectangle in asset pixels. */
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Face-match grid of screenshot-facematch.jpg (1920×954): 6 rows × 19 thumbnails, labels strip excluded. */
const GRID_ROW_TOPS_PX = [283, 395, 508, 620, 733, 845];
const GRID_CELL_WIDTH_PX = 1916 / 19;
const GRID_CELL_HEIGHT_PX = 93;

function gridCell(row: number, col: number): FaceSample {
  // Row 0 and the first two cells of row 1 are the author (the demo sorted by similarity to
  // him); cells 2–3 of row 1 are blurred or masked by sunglasses and left out as uncertain.
  const identity = row === 0 || (row === 1 && col < 2) ? 'author' : 'other';
  return {
    name: `g${row}_${String(col).padStart(2, '0')}`,
    identity,
    file: 'screenshot-facematch.jpg',
    left: Math.round(2 + col * GRID_CELL_WIDTH_PX),
    top: GRID_ROW_TOPS_PX[row],
    width: Math.round(GRID_CELL_WIDTH_PX),
    height: GRID_CELL_HEIGHT_PX,
  };
}

/** Larger single-face crops (about 140 px faces). */
export const LARGE_SAMPLES: readonly FaceSample[] = [
  { name: 'faceid', identity: 'author', file: 'screenshot-faceid.jpg', left: 10, top: 140, width: 150, height: 145 },
  { name: 'detect0', identity: 'author', file: 'screenshot-facedetect.jpg', left: 8, top: 345, width: 150, height: 152 },
  { name: 'dinner', identity: 'author', file: 'samples.jpg', left: 325, top: 0, width: 190, height: 160 },
  { name: 'detect1', identity: 'other', file: 'screenshot-facedetect.jpg', left: 164, top: 345, width: 150, height: 152 },
  { name: 'detect2', identity: 'other', file: 'screenshot-facedetect.jpg', left: 321, top: 345, width: 150, height: 152 },
  { name: 'detect3', identity: 'other', file: 'screenshot-facedetect.jpg', left: 478, top: 345, width: 150, height: 152 },
  { name: 'detect4', identity: 'other', file: 'screenshot-facedetect.jpg', left: 632, top: 345, width: 160, height: 152 },
  { name: 'webcam', identity: 'other', file: 'screenshot-vrm.jpg', left: 560, top: 30, width: 180, height: 150 },
];

/** Every labelled sample: the large crops and the grid cells (minus the uncertain ones). */
export const FACE_SAMPLES: readonly FaceSample[] = [
  ...LARGE_SAMPLES,
  ...GRID_ROW_TOPS_PX.flatMap((_, row) =>
    Array.from({ length: 19 }, (__, col) => gridCell(row, col)).filter(
      (cell) => !(row === 1 && (cell.name === 'g1_02' || cell.name === 'g1_03')),
    ),
  ),
];

/** The sample of that name. */
export function faceSample(name: string): FaceSample {
  const sample = FACE_SAMPLES.find((candidate) => candidate.name === name);
  if (!sample) throw new Error(`no face sample ${name}`);
  return sample;
}

/** The sample's pixels as a PNG, as a client would upload them. */
export async function faceSamplePng(sample: FaceSample): Promise<Buffer> {
  return sharp(path.join(HUMAN_ASSETS_DIR, sample.file))
    .extract({ left: sample.left, top: sample.top, width: sample.width, height: sample.height })
    .png()
    .toBuffer();
}
