/**
 * Face engine: analysis, comparison thresholds, 400s for zero or several faces, cancelable
 * templates, and the live `openkyc:face_match` node engine. Images are crops of the photos
 * shipped in the human package (test/support/face-samples.ts); the models load once per file.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/shared/errors.js';
import {
  analyzeFace,
  closeFaceEngine,
  compareFaces,
  detectionStats,
  fingerprint,
  livenessOutcome,
  projectTemplate,
  similarity,
  templateBytes,
  templateFromBytes,
  toTemplate,
  TEMPLATE_DIMENSION,
  TEMPLATE_VALUE_MAX,
  type FaceAnalysis,
} from '../../src/engines/face/index.js';
import { liveFaceEngine } from '../../src/engines/face/engine.js';
import { alignedCrop, cropCorrelation } from '../../src/engines/face/aligned-crop.js';
import { portraitReplaySignal } from '../../src/engines/face/portrait-replay.js';
import { decodeRgb, l2Normalize, MAX_ANALYSIS_SIDE_PX } from '../../src/engines/face/analyze.js';
import { describeFaceAt, fitSimilarity, fivePointChipTransform, type DescribeOptions } from '../../src/engines/face/faceapi.js';
import { withHuman } from '../../src/engines/face/human.js';
import { decodeUpright } from '../../src/engines/recapture-evidence.js';
import {
  FACE_MATCH_PASS_SIMILARITY,
  FACE_MATCH_REVIEW_SIMILARITY,
  PORTRAIT_REPLAY_CROP_CORRELATION,
  PORTRAIT_REPLAY_SIMILARITY,
} from '../../src/engines/face/thresholds.js';
import { CPU_ENGINES } from '../../src/engines/cpu-engines.js';
import { CPU_ENGINE_NODES } from '../../src/engines/cpu-engine-nodes.js';
import type { EngineContext } from '../../src/engines/node-engine.js';
import { faceSample, faceSamplePng } from '../support/face-samples.js';

const CONTEXT: EngineContext = { tenantId: 'tenant-1', sessionId: 'session-1', amlScoreThreshold: 80 };

/** Crops used below: two photos of the same man, and two women (not him). */
const images: Record<'author1' | 'author2' | 'womanA' | 'womanB', Buffer> = {} as never;
const faces: Partial<Record<keyof typeof images, FaceAnalysis>> = {};
const fetchCalls: string[] = [];
const realFetch = globalThis.fetch;

function dataUri(png: Buffer): string {
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** The 400 a call rejects with, for assertions on its field errors. */
async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

beforeAll(async () => {
  // Any network use (a model or wasm fetched from a CDN) would go through fetch: record it.
  globalThis.fetch = ((input: string | URL | Request) => {
    fetchCalls.push(String(input));
    return Promise.reject(new Error('network disabled in tests'));
  }) as typeof fetch;
  images.author1 = await faceSamplePng(faceSample('g0_00'));
  // Not g0_01: that thumbnail is 0.990 from g0_00, inside the document-replay band (docs/face.md).
  // Not g0_06: a dim thumbnail of a screenshot, on which the black level and the re-capture model
  // both warn, so the live engine refuses it as a presentation attack (docs/fraud.md).
  images.author2 = await faceSamplePng(faceSample('g0_03'));
  images.womanA = await faceSamplePng(faceSample('detect1'));
  images.womanB = await faceSamplePng(faceSample('detect4'));
  for (const key of Object.keys(images) as (keyof typeof images)[]) faces[key] = await analyzeFace(images[key]);
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await closeFaceEngine();
});

describe('analyzeFace', () => {
  it('given a one-face photo, when analysed, then it returns one L2-normalised 128-d embedding with box, score and spoof signals', () => {
    const face = faces.author1!;
    expect(face.faces).toBe(1);
    expect(face.embedding).toHaveLength(128);
    expect(Math.hypot(...face.embedding)).toBeCloseTo(1, 6);
    expect(face.box).toHaveLength(4);
    expect(face.score).toBeGreaterThan(0.5);
    expect(face.real).toBeGreaterThanOrEqual(0);
    expect(face.live).toBeGreaterThanOrEqual(0);
  });

  it('given the models, when loaded and run, then nothing was fetched from the network', () => {
    expect(fetchCalls).toEqual([]);
  });

  it('given an image without a face, when analysed, then it is a 400 naming the field', async () => {
    const blank = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#7a8a99' } })
      .png()
      .toBuffer();
    const error = await rejection(analyzeFace(blank, { field: 'selfie' }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('validation_failed');
    expect(error.fieldErrors).toEqual([expect.objectContaining({ field: 'selfie', code: 'no_face' })]);
  });

  it('given two faces side by side, when analysed, then it is a 400 multiple_faces; with pick largest it is accepted', async () => {
    const pair = await sharp({ create: { width: 320, height: 160, channels: 3, background: '#000000' } })
      .composite([
        { input: images.womanA, left: 0, top: 4 },
        { input: images.womanB, left: 160, top: 4 },
      ])
      .png()
      .toBuffer();
    const error = await rejection(analyzeFace(pair, { field: 'selfie' }));
    expect(error.status).toBe(400);
    expect(error.fieldErrors).toEqual([expect.objectContaining({ field: 'selfie', code: 'multiple_faces' })]);
    const largest = await analyzeFace(pair, { pick: 'largest' });
    expect(largest.faces).toBe(2);
  });

  it('given bytes that are not an image, when analysed, then it is a 400 unreadable_image', async () => {
    const error = await rejection(analyzeFace(Buffer.from('not an image'), { field: 'selfie' }));
    expect(error.fieldErrors).toEqual([expect.objectContaining({ field: 'selfie', code: 'unreadable_image' })]);
  });

  it('given one image analysed twice (a live selfie step, then the list gate), when analysed again, then detection runs once and the results are equal', async () => {
    // Bytes no other test analyses, so the first call cannot be a reuse.
    const photo = await sharp(images.womanA).jpeg({ quality: 93 }).toBuffer();
    const before = detectionStats();
    const first = await analyzeFace(photo, { field: 'selfie' });
    const second = await analyzeFace(photo, { field: 'selfie' });
    const after = detectionStats();
    expect(after.run - before.run).toBe(1);
    expect(after.reused - before.reused).toBe(1);
    expect(second).toEqual(first);
  });

  it('given unreadable bytes sent twice with different fields, when analysed, then each error names its own field (failures are not kept)', async () => {
    const bytes = Buffer.from('still not an image');
    const asSelfie = await rejection(analyzeFace(bytes, { field: 'selfie' }));
    const asPortrait = await rejection(analyzeFace(bytes, { field: 'document_portrait' }));
    expect(asSelfie.fieldErrors).toEqual([expect.objectContaining({ field: 'selfie', code: 'unreadable_image' })]);
    expect(asPortrait.fieldErrors).toEqual([expect.objectContaining({ field: 'document_portrait', code: 'unreadable_image' })]);
  });
});

describe('five-point alignment (faceapi.ts)', () => {
  it('given points moved by a known rotation, scale and shift, when the similarity is fitted, then it is recovered', () => {
    const [angle, scale, shift] = [0.3, 1.7, { x: 12, y: -5 }];
    const from = [
      { x: 0, y: 0 },
      { x: 10, y: 2 },
      { x: 4, y: 9 },
      { x: -3, y: 5 },
      { x: 7, y: -6 },
    ];
    const to = from.map((p) => ({
      x: scale * (Math.cos(angle) * p.x - Math.sin(angle) * p.y) + shift.x,
      y: scale * (Math.sin(angle) * p.x + Math.cos(angle) * p.y) + shift.y,
    }));
    const fit = fitSimilarity(from, to);
    expect(fit.a).toBeCloseTo(scale * Math.cos(angle), 9);
    expect(fit.b).toBeCloseTo(scale * Math.sin(angle), 9);
    expect(fit.tx).toBeCloseTo(shift.x, 9);
    expect(fit.ty).toBeCloseTo(shift.y, 9);
  });

  it("given 68 landmarks, when the chip transform is made, then dlib's five canonical points of the 150 px chip land on the eye corners and the nose base", () => {
    const landmarks = Array.from({ length: 68 }, () => ({ x: 0, y: 0 }));
    // An upright face twice the chip's scale, shifted by (40, 30).
    const canonical: Record<number, [number, number]> = {
      45: [0.8595674595992, 0.2134981538014],
      42: [0.6460604764104, 0.2289674387677],
      36: [0.1205750620789, 0.2137274526848],
      39: [0.3340850613712, 0.2290642403242],
      33: [0.4901123135679, 0.6277975316084],
    };
    const chipOf = (v: number) => ((0.25 + v) / 1.5) * 150;
    for (const [index, [x, y]] of Object.entries(canonical)) landmarks[Number(index)] = { x: 40 + 2 * chipOf(x), y: 30 + 2 * chipOf(y) };
    const [a0, a1, a2, b0, b1, b2] = fivePointChipTransform(landmarks);
    expect([a0, a1, b0, b1]).toEqual([expect.closeTo(2, 9), expect.closeTo(0, 9), expect.closeTo(0, 9), expect.closeTo(2, 9)]);
    expect([a2, b2]).toEqual([expect.closeTo(40, 9), expect.closeTo(30, 9)]);
  });

  it('given photos of one man and of a woman, when described through the five-point chip (with and without its mirror), then he still matches himself far above her', async () => {
    const describeWith = async (image: Buffer, options: DescribeOptions) => {
      const { pixels, width, height } = await decodeRgb(image, 'image');
      return withHuman(async (human) => {
        const input = human.tf.tensor3d(pixels, [height, width, 3], 'int32');
        try {
          const [face] = (await human.detect(input)).face;
          const described = await describeFaceAt(human.tf, input, { width, height }, face!.box, options);
          return l2Normalize(described!.descriptor);
        } finally {
          input.dispose();
        }
      });
    };
    // The chip and its mirror: both paths of describeChip.
    const options = { alignment: 'five-point', flip: true } as const;
    const [author1, author2, woman] = [
      await describeWith(images.author1, options),
      await describeWith(images.author2, options),
      await describeWith(images.womanA, options),
    ];
    expect(author1).toHaveLength(128);
    expect(similarity(author1, author2)).toBeGreaterThan(similarity(author1, woman) + 0.05);
    expect(similarity(author1, woman)).toBeLessThan(FACE_MATCH_REVIEW_SIMILARITY);
  }, 180_000);
});

describe('similarity and thresholds', () => {
  it('given two photos of the same person, when compared, then the similarity passes the match threshold', () => {
    expect(similarity(faces.author1!.embedding, faces.author2!.embedding)).toBeGreaterThanOrEqual(FACE_MATCH_PASS_SIMILARITY);
  });

  it('given photos of different people, when compared, then the similarity is below the review threshold', () => {
    expect(similarity(faces.author1!.embedding, faces.womanA!.embedding)).toBeLessThan(FACE_MATCH_REVIEW_SIMILARITY);
    expect(similarity(faces.author2!.embedding, faces.womanB!.embedding)).toBeLessThan(FACE_MATCH_REVIEW_SIMILARITY);
  });

  it('given a selfie and a portrait of one person, when compareFaces runs, then face_match passes', async () => {
    const comparison = await compareFaces(images.author2, images.author1);
    expect(comparison.faceMatch).toBe('passed');
    expect(comparison.similarity).toBeCloseTo(similarity(faces.author1!.embedding, faces.author2!.embedding), 6);
  });
});

describe('livenessOutcome', () => {
  it('given the two presentation-attack scores, when judged, then only both low fail and either low alone goes to review', () => {
    expect(livenessOutcome({ live: 0.1, real: 0.2 })).toBe('failed');
    expect(livenessOutcome({ live: 0.1, real: null })).toBe('failed');
    // A retouched studio portrait: liveness 0.14, antispoof 0.93 (realdata/face): a person looks, it does not fail.
    expect(livenessOutcome({ live: 0.14, real: 0.93 })).toBe('review');
    expect(livenessOutcome({ live: 0.4, real: 0.9 })).toBe('review');
    expect(livenessOutcome({ live: 0.9, real: 0.2 })).toBe('review');
    expect(livenessOutcome({ live: 0.9, real: 0.9 })).toBe('passed');
    expect(livenessOutcome({ live: null, real: null })).toBe('skipped');
  });
});

describe('cancelable templates', () => {
  const secretA = 'tenant-a-secret';
  const secretB = 'tenant-b-secret';

  it("given one secret, when templates are made, then they are 256 signed bytes whose cosine is the embeddings' (up to rounding) and verdicts do not change", () => {
    const [same1, same2, other] = [faces.author1!, faces.author2!, faces.womanA!].map((face) => toTemplate(face.embedding, secretA));
    expect(same1).toBeInstanceOf(Int8Array);
    expect(same1).toHaveLength(TEMPLATE_DIMENSION);
    expect(Math.max(...same1.map(Math.abs))).toBe(TEMPLATE_VALUE_MAX);
    // A rotation keeps the cosine; rounding to bytes moves it by about 0.001 (docs/face.md).
    expect(Math.abs(similarity(same1, same2) - similarity(faces.author1!.embedding, faces.author2!.embedding))).toBeLessThan(0.005);
    expect(Math.abs(similarity(same1, other) - similarity(faces.author1!.embedding, faces.womanA!.embedding))).toBeLessThan(0.005);
    expect(similarity(same1, same2)).toBeGreaterThanOrEqual(FACE_MATCH_PASS_SIMILARITY);
    expect(similarity(same1, other)).toBeLessThan(FACE_MATCH_REVIEW_SIMILARITY);
  });

  it('given many secrets, when the same pairs are compared as templates, then the same person always reaches the pass (list) threshold and different people never do', () => {
    for (let i = 0; i < 8; i++) {
      const secret = `tenant-secret-${i}`;
      const [author1, author2, womanA, womanB] = [faces.author1!, faces.author2!, faces.womanA!, faces.womanB!].map((face) =>
        toTemplate(face.embedding, secret),
      );
      expect(similarity(author1, author2)).toBeGreaterThanOrEqual(FACE_MATCH_PASS_SIMILARITY);
      // Every secret keeps the embeddings' cosines (below the review threshold, asserted above) up to rounding.
      expect(Math.abs(similarity(author1, womanA) - similarity(faces.author1!.embedding, faces.womanA!.embedding))).toBeLessThan(0.005);
      expect(similarity(author1, womanA)).toBeLessThan(FACE_MATCH_REVIEW_SIMILARITY);
      expect(similarity(author2, womanB)).toBeLessThan(FACE_MATCH_REVIEW_SIMILARITY);
    }
  });

  it('given the same secret twice, when a template is made, then it is identical (deterministic)', () => {
    expect(toTemplate(faces.author1!.embedding, secretA)).toEqual(toTemplate(faces.author1!.embedding, secretA));
  });

  it('given two secrets, when templates of one face are made, then they are unrelated and do not match each other', () => {
    const underA = toTemplate(faces.author1!.embedding, secretA);
    const underB = toTemplate(faces.author1!.embedding, secretB);
    // For unrelated random rotations in 256-d the cosine is about N(0, 1/256): |x| < 0.3 is 4.8σ.
    expect(Math.abs(similarity(underA, underB))).toBeLessThan(0.3);
    // Nor does a template resemble the (zero-padded) raw embedding it came from.
    const padded = [...faces.author1!.embedding, ...new Array<number>(TEMPLATE_DIMENSION - faces.author1!.embedding.length).fill(0)];
    expect(Math.abs(similarity(underA, padded))).toBeLessThan(0.3);
    expect(fingerprint(underA)).not.toBe(fingerprint(underB));
  });

  it('given a template, when fingerprinted and stored, then the fingerprint is sha256 of its 256 bytes and the bytes round-trip', () => {
    const template = toTemplate(faces.womanB!.embedding, secretA);
    const bytes = templateBytes(template);
    expect(bytes).toHaveLength(256);
    expect(fingerprint(template)).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    expect(fingerprint(template)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(templateFromBytes(bytes)).toEqual(template);
  });

  it('given a rotated embedding, when projected, then its 256 values become signed bytes and their scale does not count', () => {
    const rotated = Float32Array.from({ length: TEMPLATE_DIMENSION }, (_, i) => Math.sin(i + 1));
    const template = projectTemplate(rotated);
    const scaled = projectTemplate(rotated.map((value) => value * 3));
    expect(scaled).toEqual(template);
    expect(template[0]).toBe(Math.round((Math.sin(1) * TEMPLATE_VALUE_MAX) / Math.max(...rotated.map(Math.abs))));
    expect(() => projectTemplate(new Float32Array(TEMPLATE_DIMENSION))).toThrow(/zero/);
    expect(() => projectTemplate(new Float32Array(1024))).toThrow(/256 values/);
  });
});

describe('live openkyc:face_match engine', () => {
  it('given the registry, when the provider is looked up, then the live face engine serves biometric_kyc', () => {
    expect(CPU_ENGINES['openkyc:face_match']).toBe(liveFaceEngine);
    expect(liveFaceEngine.nodeType).toBe('biometric_kyc');
  });

  it('given the CPU engines, when the registry lists them without loading them, then it names the same providers and node types', () => {
    const listed = Object.values(CPU_ENGINES).map((engine) => ({ provider: engine!.provider, nodeType: engine!.nodeType }));
    expect(CPU_ENGINE_NODES).toEqual(expect.arrayContaining(listed));
    expect(CPU_ENGINE_NODES).toHaveLength(listed.length);
  });

  it('given a selfie of the document holder, when run, then the node passes with the sandbox details shape', async () => {
    const result = await liveFaceEngine.run({ selfie: dataUri(images.author2) }, { ...CONTEXT, documentPortrait: images.author1 });
    expect(result).toMatchObject({
      status: 'passed',
      provider: 'openkyc:face_match',
      warnings: [],
      details: { resultCode: 'clear', checks: { liveness: 'passed', faceMatch: 'passed' } },
    });
    expect(result.details.similarity).toBeGreaterThanOrEqual(FACE_MATCH_PASS_SIMILARITY);
    expect(result.details.similarity).toBeLessThanOrEqual(1);
  });

  it('given the document portrait itself, re-encoded and resized, as the selfie, when run, then the node fails with selfie_matches_document_portrait', async () => {
    const copy = await sharp(images.author1).resize({ width: 140 }).jpeg({ quality: 80 }).toBuffer();
    const result = await liveFaceEngine.run(
      { selfie: `data:image/jpeg;base64,${copy.toString('base64')}` },
      { ...CONTEXT, documentPortrait: images.author1 },
    );
    expect(result).toMatchObject({
      status: 'failed',
      details: { resultCode: 'selfie_matches_document_portrait', checks: { faceMatch: 'failed' }, replay: { threshold: 0.98 } },
    });
    expect(result.details.similarity).toBeGreaterThanOrEqual(0.98);
  });

  it('given a copy of the portrait whose embedding was moved below the replay similarity, when run, then the aligned crops still catch it as selfie_matches_document_portrait', async () => {
    const portrait = await analyzeFace(images.author1);
    const crop = alignedCrop(await decodeUpright(images.author1, MAX_ANALYSIS_SIDE_PX), portrait)!;
    // The stored embedding turned 18° away from the portrait's (cosine 0.95), as a perturbation of the copy would move it.
    const away = Array.from({ length: portrait.embedding.length }, (_, i) => Math.sin(i * 1.7));
    const along = away.reduce((sum, value, i) => sum + value * portrait.embedding[i], 0);
    const orthogonal = away.map((value, i) => value - along * portrait.embedding[i]);
    const norm = Math.hypot(...orthogonal);
    const moved = portrait.embedding.map((value, i) => value + (Math.tan(Math.acos(0.95)) * orthogonal[i]) / norm);
    const copy = await sharp(images.author1).resize({ width: 140 }).jpeg({ quality: 80 }).toBuffer();
    const selfie = `data:image/jpeg;base64,${copy.toString('base64')}`;

    const withoutCrop = await liveFaceEngine.run({ selfie }, { ...CONTEXT, documentPortraitEmbedding: moved });
    expect(withoutCrop.details.similarity).toBeLessThan(PORTRAIT_REPLAY_SIMILARITY);
    expect(withoutCrop.details.resultCode).not.toBe('selfie_matches_document_portrait');

    const result = await liveFaceEngine.run({ selfie }, { ...CONTEXT, documentPortraitEmbedding: moved, documentPortraitCrop: crop });
    expect(result).toMatchObject({
      status: 'failed',
      details: {
        resultCode: 'selfie_matches_document_portrait',
        replay: { signal: 'aligned_crop', cropThreshold: PORTRAIT_REPLAY_CROP_CORRELATION },
      },
    });
    expect((result.details as { replay: { cropCorrelation: number } }).replay.cropCorrelation).toBeGreaterThanOrEqual(
      PORTRAIT_REPLAY_CROP_CORRELATION,
    );
  });

  it('given two different photos of the same man, when their aligned crops are compared, then they stay below the replay correlation', async () => {
    const [first, second] = await Promise.all([analyzeFace(images.author1), analyzeFace(images.author2)]);
    const correlation = cropCorrelation(
      alignedCrop(await decodeUpright(images.author1, MAX_ANALYSIS_SIDE_PX), first),
      alignedCrop(await decodeUpright(images.author2, MAX_ANALYSIS_SIDE_PX), second),
    );
    expect(correlation).toBeLessThan(PORTRAIT_REPLAY_CROP_CORRELATION);
  });

  it('given the replay rule, when crops correlate but the faces do not match, or match without correlating, then it is no replay', () => {
    expect(portraitReplaySignal(0.99)).toBe('embedding');
    expect(portraitReplaySignal(0.95, PORTRAIT_REPLAY_CROP_CORRELATION)).toBe('aligned_crop');
    expect(portraitReplaySignal(0.95, 0.7)).toBeNull();
    expect(portraitReplaySignal(FACE_MATCH_REVIEW_SIMILARITY - 0.01, 0.99)).toBeNull();
    expect(portraitReplaySignal(0.95, null)).toBeNull();
  });

  it('given a selfie of someone else, when run, then the node fails with face_mismatch', async () => {
    const result = await liveFaceEngine.run({ selfie: dataUri(images.womanA) }, { ...CONTEXT, documentPortrait: images.author1 });
    expect(result).toMatchObject({ status: 'failed', details: { resultCode: 'face_mismatch', checks: { faceMatch: 'failed' } } });
  });

  it('given no document portrait, when run, then the node goes to review with a warning', async () => {
    const result = await liveFaceEngine.run({ selfie: dataUri(images.author2) }, CONTEXT);
    expect(result).toMatchObject({
      status: 'review',
      details: { resultCode: 'document_portrait_missing', checks: { faceMatch: 'skipped' } },
    });
    expect(result.warnings).toEqual([expect.objectContaining({ code: 'document_portrait_missing' })]);
  });

  it('given a portrait embedding stored by the previous model (1024 values), when run, then the node goes to review as without a portrait', async () => {
    const stale = Array.from({ length: 1024 }, (_, i) => Math.sin(i));
    const result = await liveFaceEngine.run({ selfie: dataUri(images.author2) }, { ...CONTEXT, documentPortraitEmbedding: stale });
    expect(result).toMatchObject({
      status: 'review',
      details: { resultCode: 'document_portrait_missing', checks: { faceMatch: 'skipped' } },
    });
  });

  it('given a selfie that is not a data URI, when run, then it is a 400 on selfie', async () => {
    const error = await rejection(
      liveFaceEngine.run({ selfie: 'https://example.com/me.jpg' }, { ...CONTEXT, documentPortrait: images.author1 }),
    );
    expect(error.fieldErrors).toEqual([expect.objectContaining({ field: 'selfie' })]);
  });
});
