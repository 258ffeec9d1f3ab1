/**
 * Presentation-attack and re-capture signals (src/engines/recapture-evidence.ts, face/pad.ts,
 * document/recapture.ts) on images generated here: a smooth "scene" with sensor noise, the same
 * with the traces of a screen or a print added one at a time, so each signal is shown to react to
 * its own trace and to stay quiet without it. The combination rule is tested on numbers.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  cameraMetadata,
  decodeUpright,
  frameSides,
  grow,
  periodicPeak,
  rimEvidence,
  tone,
  type Box,
  type Rgb,
} from '../../src/engines/recapture-evidence.js';
import {
  FACE_PERIODIC_FAIL_FROM,
  FACE_PERIODIC_WARN_FROM,
  judgePad,
  measurePad,
  PAD_FACE_REGION_GROWTH,
  PERIODIC_FAIL_FROM,
  PERIODIC_WARN_FROM,
  RECAPTURE_MODEL_FAIL_BELOW,
  RECAPTURE_MODEL_WARN_BELOW,
  RIM_FAIL_FROM,
  RIM_WARN_FROM,
  SCENE_PATTERN_FACE_BELOW,
  SKIN_MARGIN_FAIL_BELOW,
  SKIN_MARGIN_WARN_BELOW,
  type PadMeasures,
} from '../../src/engines/face/pad.js';
import { detectRecapture } from '../../src/engines/document/recapture.js';
import { prng } from '../support/prng.js';

const WIDTH = 480;
const HEIGHT = 600;
/** Where the "face" is in every generated image. */
const FACE: Box = [170, 180, 140, 170];

/** A smooth lit scene with sensor noise and a skin-coloured oval at `FACE`; `paint` adds an attack's trace. */
function scene(paint?: (x: number, y: number, rgb: [number, number, number]) => [number, number, number]): Rgb {
  const random = prng(7);
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  const [fx, fy, fw, fh] = FACE;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const inFace = ((x - fx - fw / 2) / (fw / 2)) ** 2 + ((y - fy - fh / 2) / (fh / 2)) ** 2 <= 1;
      const light = 0.7 + 0.3 * Math.sin(x / 90) * Math.cos(y / 120);
      const noise = (random() - 0.5) * 12;
      let rgb: [number, number, number] = inFace
        ? [200 * light + noise, 150 * light + noise, 120 * light + noise]
        : [90 * light + noise + 40 * (y / HEIGHT), 100 * light + noise, 110 * light + noise];
      // Dark hair above the face, so the scene has real blacks as photos of people do.
      if (!inFace && y > fy - 40 && y < fy + 20 && x > fx && x < fx + fw) rgb = [10 + noise / 2, 8 + noise / 2, 6 + noise / 2];
      if (paint) rgb = paint(x, y, rgb);
      const i = (y * WIDTH + x) * 3;
      for (let k = 0; k < 3; k++) data[i + k] = Math.max(0, Math.min(255, Math.round(rgb[k])));
    }
  }
  return { data, width: WIDTH, height: HEIGHT };
}

/** The image a camera would see, as JPEG bytes. */
function jpeg(image: Rgb, exif?: Record<string, Record<string, string>>): Promise<Buffer> {
  let pipeline = sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 3 } }).jpeg({ quality: 90 });
  if (exif) pipeline = pipeline.withExif(exif);
  return pipeline.toBuffer();
}

const REGION: Box = [FACE[0] - 70, FACE[1] - 85, FACE[2] * 2, FACE[3] * 2];

describe('periodic pattern (FFT)', () => {
  it('given a plain scene, when measured, then no peak reaches the warning limit', () => {
    expect(periodicPeak(scene(), REGION)).toBeLessThan(PERIODIC_WARN_FROM);
  });

  it("given the same scene with a screen's scanlines (period 5 px), when measured, then the peak is strong evidence", () => {
    const lines = scene((_, y, rgb) => rgb.map((c) => c * (0.8 + 0.2 * Math.cos((2 * Math.PI * y) / 5))) as [number, number, number]);
    expect(periodicPeak(lines, REGION)).toBeGreaterThanOrEqual(PERIODIC_FAIL_FROM);
  });

  it("given a print's halftone dots (45°, period 4.5 px), when measured, then the peak is strong evidence", () => {
    const angle = Math.PI / 4;
    const dots = scene((x, y, rgb) => {
      const u = (x * Math.cos(angle) + y * Math.sin(angle)) / 4.5;
      const v = (-x * Math.sin(angle) + y * Math.cos(angle)) / 4.5;
      return rgb.map((c) => c * (1 - 0.15 * Math.cos(2 * Math.PI * u) * Math.cos(2 * Math.PI * v))) as [number, number, number];
    });
    expect(periodicPeak(dots, REGION)).toBeGreaterThanOrEqual(PERIODIC_FAIL_FROM);
  });

  it('given a scene with one strong straight edge (a line in the spectrum, not a point), when measured, then it stays below the warning limit', () => {
    const edge = scene((x, _, rgb) => (x > 250 ? (rgb.map((c) => c * 0.4) as [number, number, number]) : rgb));
    expect(periodicPeak(edge, REGION)).toBeLessThan(PERIODIC_WARN_FROM);
  });
});

describe('face-local periodic pattern', () => {
  const inFace = (x: number, y: number) => x >= FACE[0] && x < FACE[0] + FACE[2] && y >= FACE[1] && y < FACE[1] + FACE[3];
  /** Halftone dots (30°, period 4 px) printed on the face only: a cut-out or a print whose surroundings are the room. */
  const dottedFace = () =>
    scene((x, y, rgb) => {
      if (!inFace(x, y)) return rgb;
      const angle = Math.PI / 6;
      const u = (x * Math.cos(angle) + y * Math.sin(angle)) / 4;
      const v = (-x * Math.sin(angle) + y * Math.cos(angle)) / 4;
      return rgb.map((c) => c * (1 - 0.12 * Math.cos(2 * Math.PI * u) * Math.cos(2 * Math.PI * v))) as [number, number, number];
    });

  it('given a plain face, when measured on the face itself, then no peak reaches the warning limit', () => {
    expect(periodicPeak(scene(), grow(FACE, PAD_FACE_REGION_GROWTH, WIDTH, HEIGHT))).toBeLessThan(FACE_PERIODIC_WARN_FROM);
  });

  it('given halftone dots on the face only, when the selfie is judged, then face_periodic_pattern fails it', async () => {
    const image = dottedFace();
    const measures = await measurePad(await jpeg(image), { box: FACE, real: 0.9, live: 0.9 }, image);
    expect(measures.facePeriodicPeak).toBeGreaterThanOrEqual(FACE_PERIODIC_FAIL_FROM);
    const finding = judgePad(measures);
    expect(finding.outcome).toBe('failed');
    expect(finding.signals.find((signal) => signal.name === 'face_periodic_pattern')).toMatchObject({
      outcome: 'failed',
      limit: FACE_PERIODIC_WARN_FROM,
    });
  });
});

describe('cut-out rim', () => {
  /** A thin paper-white outline (3 px) around the head, an ellipse 1.5 face radii out: the rim a cut-out keeps. */
  const rimmed = () =>
    scene((x, y, rgb) => {
      const [fx, fy, fw, fh] = FACE;
      const distance = Math.hypot((x - fx - fw / 2) / (fw * 0.75), (y - fy - fh / 2) / (fh * 0.75));
      return Math.abs(distance - 1) * fw * 0.75 < 1.5 ? [238, 236, 230] : rgb;
    });

  it('given a plain scene, when measured, then no closed rim is found', () => {
    expect(rimEvidence(scene(), FACE).closedShare).toBeLessThan(RIM_WARN_FROM);
  });

  it('given a thin paper outline around the head, when measured and judged, then cutout_rim fails the selfie', () => {
    const evidence = rimEvidence(rimmed(), FACE);
    expect(evidence.closedShare).toBeGreaterThanOrEqual(RIM_FAIL_FROM);
    expect(evidence.ridgeShare).toBeGreaterThanOrEqual(evidence.closedShare);
  });

  it('given a white collar below the face only, when measured, then it is no closed outline', () => {
    const collar = scene((x, y, rgb) => {
      const [fx, fy, fw, fh] = FACE;
      return y > fy + fh * 1.15 && y < fy + fh * 1.15 + 3 && x > fx - 20 && x < fx + fw + 20 ? [240, 240, 238] : rgb;
    });
    expect(rimEvidence(collar, FACE).closedShare).toBeLessThan(RIM_WARN_FROM);
  });
});

describe('frame edges', () => {
  it('given a plain scene, when measured, then no side of the face has a frame edge', () => {
    expect(frameSides(scene(), FACE).sides).toBe(0);
  });

  it("given a photo inside a screen's dark bezel, tilted 4°, when measured, then all four sides have one", () => {
    const tilt = Math.tan((4 * Math.PI) / 180);
    const framed = scene((x, y, rgb) => {
      const u = x - tilt * (y - HEIGHT / 2);
      const v = y + tilt * (x - WIDTH / 2);
      const inside = u > 60 && u < WIDTH - 60 && v > 60 && v < HEIGHT - 60;
      const bezel = u > 35 && u < WIDTH - 35 && v > 35 && v < HEIGHT - 35;
      return inside ? rgb : bezel ? [15, 15, 17] : [170, 140, 110];
    });
    expect(frameSides(framed, FACE).sides).toBe(4);
  });

  it('given a door frame on one side only, when measured, then only that side counts', () => {
    const door = scene((x, _, rgb) => (x > 400 ? [230, 230, 225] : rgb));
    const found = frameSides(door, FACE);
    expect(found.sides).toBe(1);
    expect(found.coverage.right).toBeGreaterThan(0.85);
  });
});

describe('tone', () => {
  it("given skin in daylight, when measured, then the red–blue margin is a skin's and the blacks are black", () => {
    const measured = tone(scene(), FACE);
    expect(measured.skinRedMargin).toBeGreaterThan(0.3);
    expect(measured.blackLevel).toBeLessThan(20);
  });

  it("given a screen's blue cast and lifted blacks, when measured, then the margin falls and the black level rises", () => {
    const screen = scene((_, __, [r, g, b]) => [40 + r * 0.75, 40 + g * 0.8, 40 + b * 0.95]);
    const measured = tone(screen, FACE);
    expect(measured.skinRedMargin).toBeLessThan(0.25);
    expect(measured.blackLevel).toBeGreaterThan(40);
  });
});

describe('camera metadata', () => {
  it('given a JPEG with the EXIF make and model a camera writes, when read, then the camera is named', async () => {
    const bytes = await jpeg(scene(), { IFD0: { Make: 'Canon', Model: 'Canon EOS 5D Mark II' } });
    expect(await cameraMetadata(bytes)).toEqual({ camera: true, captureTime: false });
  });

  it('given the same JPEG without EXIF, when read, then nothing names a camera', async () => {
    expect(await cameraMetadata(await jpeg(scene()))).toEqual({ camera: false, captureTime: false });
  });
});

describe('the PAD decision', () => {
  const clean: PadMeasures = {
    periodicPeak: 1,
    facePeriodicPeak: 0.8,
    frame: { sides: 0, coverage: { top: 0, bottom: 0, left: 0, right: 0 } },
    rim: 0.05,
    skinRedMargin: 0.45,
    blackLevel: 10,
    real: 0.8,
    live: 0.9,
    recaptureModel: 0.9,
    cameraMetadata: false,
  };
  const outcomeOf = (finding: ReturnType<typeof judgePad>, name: string) => finding.signals.find((signal) => signal.name === name)?.outcome;

  it('given clean measures without EXIF, when judged, then it passes and camera_metadata is reported but not counted', () => {
    const finding = judgePad(clean);
    expect(finding.outcome).toBe('passed');
    expect(outcomeOf(finding, 'camera_metadata')).toBe('warning');
    expect(finding.signals.map((signal) => signal.name)).toEqual([
      'periodic_pattern',
      'face_periodic_pattern',
      'frame_edge',
      'cutout_rim',
      'skin_colour',
      'black_level',
      'antispoof_model',
      'liveness_model',
      'recapture_model',
      'camera_metadata',
    ]);
  });

  it('given a re-capture model score under the strong level, when judged, then recapture_model fails it alone; a score between the levels only warns', () => {
    const strong = judgePad({ ...clean, recaptureModel: RECAPTURE_MODEL_FAIL_BELOW - 0.01 });
    expect(strong.outcome).toBe('failed');
    expect(strong.signals.find((signal) => signal.name === 'recapture_model')).toMatchObject({
      outcome: 'failed',
      value: RECAPTURE_MODEL_FAIL_BELOW - 0.01,
      limit: RECAPTURE_MODEL_WARN_BELOW,
    });
    const weak = judgePad({ ...clean, recaptureModel: (RECAPTURE_MODEL_FAIL_BELOW + RECAPTURE_MODEL_WARN_BELOW) / 2 });
    expect(weak.outcome).toBe('passed');
    expect(outcomeOf(weak, 'recapture_model')).toBe('warning');
    expect(judgePad({ ...clean, recaptureModel: RECAPTURE_MODEL_WARN_BELOW - 0.01, blackLevel: 60 }).outcome).toBe('failed');
    expect(outcomeOf(judgePad({ ...clean, recaptureModel: RECAPTURE_MODEL_WARN_BELOW }), 'recapture_model')).toBe('passed');
  });

  it('given no re-capture score (not measured), when judged, then recapture_model passes and counts for nothing', () => {
    const finding = judgePad({ ...clean, recaptureModel: null });
    expect(finding.outcome).toBe('passed');
    expect(finding.signals.find((signal) => signal.name === 'recapture_model')).toMatchObject({ outcome: 'passed', value: 1 });
  });

  it('given a frame on two sides, when judged, then it is a presentation attack by frame_edge alone', () => {
    const finding = judgePad({ ...clean, frame: { sides: 2, coverage: { top: 0.9, bottom: 0.9, left: 0, right: 0 } } });
    expect(finding.outcome).toBe('failed');
    expect(outcomeOf(finding, 'frame_edge')).toBe('failed');
  });

  it('given one weak signal (a low liveness score), when judged, then it passes; with a second (a colour cast), it fails', () => {
    expect(judgePad({ ...clean, live: 0.1 }).outcome).toBe('passed');
    const two = judgePad({ ...clean, live: 0.1, skinRedMargin: 0.2 });
    expect(two.outcome).toBe('failed');
    expect(outcomeOf(two, 'liveness_model')).toBe('warning');
    expect(outcomeOf(two, 'skin_colour')).toBe('warning');
  });

  it('given a skin colour cast past the strong level, when judged, then skin_colour fails it alone; a milder cast only warns', () => {
    const strong = judgePad({ ...clean, skinRedMargin: SKIN_MARGIN_FAIL_BELOW - 0.03 });
    expect(strong.outcome).toBe('failed');
    expect(strong.signals.find((signal) => signal.name === 'skin_colour')).toMatchObject({
      outcome: 'failed',
      value: SKIN_MARGIN_FAIL_BELOW - 0.03,
      limit: SKIN_MARGIN_WARN_BELOW,
    });
    const mild = judgePad({ ...clean, skinRedMargin: (SKIN_MARGIN_FAIL_BELOW + SKIN_MARGIN_WARN_BELOW) / 2 });
    expect(mild.outcome).toBe('passed');
    expect(outcomeOf(mild, 'skin_colour')).toBe('warning');
  });

  it('given a weak cut-out rim and a weak face-local pattern, when judged, then the two weak signals together fail it', () => {
    const finding = judgePad({ ...clean, rim: RIM_WARN_FROM, facePeriodicPeak: FACE_PERIODIC_WARN_FROM });
    expect(finding.outcome).toBe('failed');
    expect(outcomeOf(finding, 'cutout_rim')).toBe('warning');
    expect(outcomeOf(finding, 'face_periodic_pattern')).toBe('warning');
    expect(judgePad({ ...clean, rim: RIM_WARN_FROM }).outcome).toBe('passed');
  });

  it('given a strong pattern around the face and none on the measured face, when judged, then it is the scene and passes; carried over the face, it fails', () => {
    const scene = judgePad({ ...clean, periodicPeak: 3.6, facePeriodicPeak: SCENE_PATTERN_FACE_BELOW - 0.8 });
    expect(scene.outcome).toBe('passed');
    expect(scene.signals[0]).toMatchObject({ name: 'periodic_pattern', outcome: 'passed', value: 3.6 });
    expect(scene.signals[0]!.meaning).toMatch(/scene/);
    expect(judgePad({ ...clean, periodicPeak: 3.6, facePeriodicPeak: SCENE_PATTERN_FACE_BELOW + 0.1 }).outcome).toBe('failed');
  });

  it('given a strong periodic peak around a face too small to measure on its own, when judged, then it fails on periodic_pattern with the value and limit reported', () => {
    const finding = judgePad({ ...clean, periodicPeak: 4.2, facePeriodicPeak: 0 });
    expect(finding.outcome).toBe('failed');
    expect(finding.signals[0]).toMatchObject({ name: 'periodic_pattern', outcome: 'failed', value: 4.2, limit: PERIODIC_WARN_FROM });
  });
});

describe('document re-capture', () => {
  it('given a plain image, when checked, then it is not flagged; with scanlines over it, it is flagged on periodic_pattern', async () => {
    const plain = await detectRecapture(await jpeg(scene()));
    expect(plain.outcome).toBe('passed');
    const lines = scene((_, y, rgb) => rgb.map((c) => c * (0.75 + 0.25 * Math.cos((2 * Math.PI * y) / 4.5))) as [number, number, number]);
    const flagged = await detectRecapture(await jpeg(lines));
    expect(flagged.outcome).toBe('review');
    expect(flagged.signals.find((signal) => signal.name === 'periodic_pattern')?.outcome).toBe('warning');
  });

  it('given JPEG bytes, when decoded for the evidence, then the pixels come back upright at their size', async () => {
    const image = await decodeUpright(await jpeg(scene()), 1280);
    expect([image.width, image.height]).toEqual([WIDTH, HEIGHT]);
  });
});
