/**
 * The page in a phone photo of a document: its four corners found on a small copy (straight
 * edges from a Hough transform of the image's gradients, and the outline of the largest bright
 * region, each candidate quadrilateral kept only when all four sides are brighter inside than
 * outside, as paper on a desk is), and the
 * page cut out and seen square-on (a perspective warp by the homography from the page's rectangle
 * to those corners, bilinear sampling). Own code on purpose: the generic alternative from npm
 * (OpenCV compiled to WASM, `@techstark/opencv-js`) is a 10 MB dependency for two steps that fit
 * here, and scanning a bill needs nothing else of it.
 */
import sharp from 'sharp';

/** Longest side of the copy the page is looked for on, in pixels: the outline needs no more. */
const QUAD_ANALYSIS_SIDE_PX = 480;
/** Smallest share of the photo the page must cover: less is a page too far away (or no page). */
export const PAGE_MIN_AREA_SHARE = 0.2;
/** Largest share: more and the page fills the photo (a scan, a crop): nothing to cut. */
const PAGE_MAX_AREA_SHARE = 0.93;
/** Smallest share of the quadrilateral the bright region must fill: less and it is not a page's outline. */
const QUAD_MIN_FILL = 0.88;
/** Smallest corner angle of an accepted page outline, in degrees (a page seen at an angle stays far from a sliver). */
const QUAD_MIN_CORNER_DEGREES = 55;
/** Share of the page's size trimmed at each edge after the warp: the paper's edge and the desk beside it. */
const EDGE_TRIM_SHARE = 0.008;

/** A point in pixels. */
export interface Point {
  x: number;
  y: number;
}

/** Otsu's threshold of a grey image (the level that best splits its histogram in two). */
export function otsuThreshold(grey: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (const value of grey) histogram[value]++;
  const total = grey.length;
  let sumAll = 0;
  for (let level = 0; level < 256; level++) sumAll += level * histogram[level];
  let weightBelow = 0;
  let sumBelow = 0;
  let best = { level: 127, variance: -1 };
  for (let level = 0; level < 256; level++) {
    weightBelow += histogram[level];
    if (weightBelow === 0) continue;
    const weightAbove = total - weightBelow;
    if (weightAbove === 0) break;
    sumBelow += level * histogram[level];
    const meanBelow = sumBelow / weightBelow;
    const meanAbove = (sumAll - sumBelow) / weightAbove;
    const variance = weightBelow * weightAbove * (meanBelow - meanAbove) ** 2;
    if (variance > best.variance) best = { level, variance };
  }
  return best.level;
}

/** Convex hull of points (Andrew's monotone chain), counter-clockwise in image coordinates' sense of the cross product. */
export function convexHull(points: Point[]): Point[] {
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  if (sorted.length < 3) return sorted;
  const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower: Point[] = [];
  for (const point of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], point) <= 0) lower.pop();
    lower.push(point);
  }
  const upper: Point[] = [];
  for (const point of sorted.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], point) <= 0) upper.pop();
    upper.push(point);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

/** Area of a simple polygon (shoelace). */
export function polygonArea(polygon: Point[]): number {
  let twice = 0;
  for (let i = 0; i < polygon.length; i++) {
    const a = polygon[i];
    const b = polygon[(i + 1) % polygon.length];
    twice += a.x * b.y - b.x * a.y;
  }
  return Math.abs(twice) / 2;
}

/** The convex polygon reduced to four vertices, each time dropping the vertex whose removal loses the least area. */
function reduceToQuad(hull: Point[]): Point[] {
  const polygon = [...hull];
  while (polygon.length > 4) {
    let weakest = 0;
    let smallest = Infinity;
    for (let i = 0; i < polygon.length; i++) {
      const previous = polygon[(i + polygon.length - 1) % polygon.length];
      const next = polygon[(i + 1) % polygon.length];
      const loss = polygonArea([previous, polygon[i], next]);
      if (loss < smallest) {
        smallest = loss;
        weakest = i;
      }
    }
    polygon.splice(weakest, 1);
  }
  return polygon;
}

/** Corners ordered top-left, top-right, bottom-right, bottom-left (clockwise on screen, starting nearest the top-left). */
function orderCorners(quad: Point[]): Point[] {
  const cx = quad.reduce((sum, p) => sum + p.x, 0) / 4;
  const cy = quad.reduce((sum, p) => sum + p.y, 0) / 4;
  const byAngle = [...quad].sort((a, b) => Math.atan2(a.y - cy, a.x - cx) - Math.atan2(b.y - cy, b.x - cx));
  let start = 0;
  for (let i = 1; i < 4; i++) if (byAngle[i].x + byAngle[i].y < byAngle[start].x + byAngle[start].y) start = i;
  return [0, 1, 2, 3].map((k) => byAngle[(start + k) % 4]);
}

/** Smallest interior angle of a convex quadrilateral, degrees. */
function smallestCorner(quad: Point[]): number {
  let smallest = 180;
  for (let i = 0; i < 4; i++) {
    const p = quad[i];
    const a = quad[(i + 3) % 4];
    const b = quad[(i + 1) % 4];
    const angle = Math.abs(Math.atan2(a.y - p.y, a.x - p.x) - Math.atan2(b.y - p.y, b.x - p.x)) * (180 / Math.PI);
    smallest = Math.min(smallest, angle > 180 ? 360 - angle : angle);
  }
  return smallest;
}

/** Smallest rise of brightness across a page edge, from outside to inside, in grey levels (of the blurred copy). */
const EDGE_MIN_CONTRAST = 10;
/** Smallest share of an edge's samples that must show that rise for the side to be the paper's edge. */
const SIDE_MIN_SUPPORT = 0.45;
/** Lines kept per orientation (near-horizontal, near-vertical) from the Hough transform's strongest peaks. */
const LINES_PER_ORIENTATION = 8;

/** A grey copy of the photo small enough to search for the page on. */
interface Small {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A line in normal form: x·cos(φ) + y·sin(φ) = ρ, φ in degrees [0, 180). */
interface Line {
  degrees: number;
  rho: number;
  votes: number;
}

/** Brightness of the small copy at a point (nearest pixel), undefined outside. */
function sample(small: Small, x: number, y: number): number | undefined {
  const xi = Math.round(x);
  const yi = Math.round(y);
  if (xi < 0 || yi < 0 || xi >= small.width || yi >= small.height) return undefined;
  return small.data[yi * small.width + xi];
}

/**
 * How much of a quadrilateral's outline is a paper edge: the mean of its sides' support
 * (`sideSupports`), 0 when any side is below SIDE_MIN_SUPPORT (a box printed on the page is as
 * bright on both sides, a shadow's edge is soft).
 */
function outlineScore(small: Small, quad: Point[]): number {
  const sides = sideSupports(small, quad);
  return sides.some((support) => support < SIDE_MIN_SUPPORT) ? 0 : sides.reduce((sum, support) => sum + support, 0) / 4;
}

/**
 * Per side of a quadrilateral, the share of points (corners' tenth left out) where the inside is
 * brighter than the outside by EDGE_MIN_CONTRAST: 1 along a paper edge on a desk.
 */
function sideSupports(small: Small, quad: Point[]): number[] {
  const cx = quad.reduce((sum, p) => sum + p.x, 0) / 4;
  const cy = quad.reduce((sum, p) => sum + p.y, 0) / 4;
  const reach = Math.max(2, Math.round(Math.max(small.width, small.height) / 160));
  const supports: number[] = [];
  for (let i = 0; i < 4; i++) {
    const a = quad[i];
    const b = quad[(i + 1) % 4];
    const length = Math.hypot(b.x - a.x, b.y - a.y);
    let nx = -(b.y - a.y) / length;
    let ny = (b.x - a.x) / length;
    const mx = (a.x + b.x) / 2;
    const my = (a.y + b.y) / 2;
    if (nx * (cx - mx) + ny * (cy - my) < 0) {
      nx = -nx;
      ny = -ny;
    }
    const samples = Math.max(8, Math.round(length / 2));
    let supported = 0;
    let counted = 0;
    for (let k = 0; k <= samples; k++) {
      const t = 0.1 + (0.8 * k) / samples;
      const x = a.x + (b.x - a.x) * t;
      const y = a.y + (b.y - a.y) * t;
      const inside = sample(small, x + nx * reach, y + ny * reach);
      const outside = sample(small, x - nx * reach, y - ny * reach);
      if (inside === undefined) continue;
      counted++;
      // Outside the frame counts as no edge: a page running off the photo is not cut there.
      if (outside !== undefined && inside - outside >= EDGE_MIN_CONTRAST) supported++;
    }
    supports.push(counted > 0 ? supported / counted : 0);
  }
  return supports;
}

/** Steps of the corner search in `refineQuad`, in pixels of the small copy, coarse to fine. */
const REFINE_STEPS_PX = [4, 2, 1];
/** Most rounds of the corner search per step (each round tries every corner in 8 directions). */
const REFINE_MAX_ROUNDS = 20;

/**
 * A quadrilateral's corners moved, one at a time and a few pixels at a step, while its sides
 * become more of a paper edge (`sideSupports`, summed). The bright region's outline is cut to
 * four corners by area, not by its edges: where part of the page lies in a shadow (darker than
 * Otsu's threshold) or runs off the frame, a side of that outline cuts across the paper and
 * fails the edge test, and a table's rule inside the page then won as its top edge, losing the
 * header with the date. The search puts each side back on the paper's edge.
 */
function refineQuad(small: Small, quad: Point[]): Point[] {
  const value = (candidate: Point[]) => sideSupports(small, candidate).reduce((sum, support) => sum + support, 0);
  const directions = [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
    [1, 1],
    [1, -1],
    [-1, 1],
    [-1, -1],
  ];
  let current = quad;
  let best = value(current);
  for (const step of REFINE_STEPS_PX) {
    for (let round = 0; round < REFINE_MAX_ROUNDS; round++) {
      let improved = false;
      for (let i = 0; i < 4; i++) {
        for (const [dx, dy] of directions) {
          const trial = current.map((p, k) => (k === i ? { x: p.x + dx * step, y: p.y + dy * step } : p));
          const trialValue = value(trial);
          if (trialValue > best + 1e-9) {
            best = trialValue;
            current = trial;
            improved = true;
          }
        }
      }
      if (!improved) break;
    }
  }
  return current;
}

/**
 * Straight edges of the small copy by a Hough transform: Sobel gradients, the strongest tenth of
 * them voting for lines within 8° of their own direction (text votes little, a paper edge a
 * lot), peaks kept where no neighbour within 4° and 8 px has more votes.
 */
function houghLines(small: Small): Line[] {
  const { data, width: w, height: h } = small;
  const magnitude = new Float32Array(w * h);
  const direction = new Float32Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const gx = data[i - w + 1] + 2 * data[i + 1] + data[i + w + 1] - data[i - w - 1] - 2 * data[i - 1] - data[i + w - 1];
      const gy = data[i + w - 1] + 2 * data[i + w] + data[i + w + 1] - data[i - w - 1] - 2 * data[i - w] - data[i - w + 1];
      magnitude[i] = Math.hypot(gx, gy);
      direction[i] = Math.atan2(gy, gx);
    }
  }
  const sorted = Float32Array.from(magnitude).sort();
  const threshold = Math.max(40, sorted[Math.floor(sorted.length * 0.9)]);
  const diagonal = Math.ceil(Math.hypot(w, h));
  const rhos = 2 * diagonal + 1;
  const accumulator = new Float32Array(180 * rhos);
  const cos = Float64Array.from({ length: 180 }, (_, t) => Math.cos((t * Math.PI) / 180));
  const sin = Float64Array.from({ length: 180 }, (_, t) => Math.sin((t * Math.PI) / 180));
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (magnitude[i] < threshold) continue;
      let degrees = Math.round((direction[i] * 180) / Math.PI);
      degrees = ((degrees % 180) + 180) % 180;
      for (let d = -8; d <= 8; d++) {
        const t = (degrees + d + 180) % 180;
        const rho = Math.round(x * cos[t] + y * sin[t]) + diagonal;
        accumulator[t * rhos + rho] += 1;
      }
    }
  }
  const peaks: Line[] = [];
  for (let t = 0; t < 180; t++) {
    for (let r = 0; r < rhos; r++) {
      const votes = accumulator[t * rhos + r];
      if (votes < 20) continue;
      let isPeak = true;
      for (let dt = -4; dt <= 4 && isPeak; dt++) {
        const tt = (t + dt + 180) % 180;
        // Across φ = 0/180 the line is the same with ρ negated.
        const wraps = t + dt < 0 || t + dt >= 180;
        for (let dr = -8; dr <= 8; dr++) {
          const rr = wraps ? 2 * diagonal - r - dr : r + dr;
          if (rr < 0 || rr >= rhos || (dt === 0 && dr === 0)) continue;
          const other = accumulator[tt * rhos + rr];
          if (other > votes || (other === votes && (dt < 0 || (dt === 0 && dr < 0)))) {
            isPeak = false;
            break;
          }
        }
      }
      if (isPeak) peaks.push({ degrees: t, rho: r - diagonal, votes });
    }
  }
  peaks.sort((a, b) => b.votes - a.votes);
  const horizontal = peaks.filter((line) => line.degrees >= 45 && line.degrees < 135).slice(0, LINES_PER_ORIENTATION);
  const vertical = peaks.filter((line) => line.degrees < 45 || line.degrees >= 135).slice(0, LINES_PER_ORIENTATION);
  return [...horizontal, ...vertical];
}

/** Where two lines cross, undefined when they are (nearly) parallel. */
function intersection(a: Line, b: Line): Point | undefined {
  const ta = (a.degrees * Math.PI) / 180;
  const tb = (b.degrees * Math.PI) / 180;
  const det = Math.cos(ta) * Math.sin(tb) - Math.sin(ta) * Math.cos(tb);
  if (Math.abs(det) < 1e-6) return undefined;
  return {
    x: (a.rho * Math.sin(tb) - b.rho * Math.sin(ta)) / det,
    y: (Math.cos(ta) * b.rho - Math.cos(tb) * a.rho) / det,
  };
}

/**
 * How far a page's corner may lie outside the photo, as a share of its width or height: a page
 * framed tightly runs a little off the photo, and its outline is still the best cut (the missing
 * strip is read as white).
 */
const FRAME_SLACK_SHARE = 0.06;

/** Whether a candidate outline has a page's shape and size in a `w`×`h` frame (corners may leave the frame by FRAME_SLACK_SHARE). */
function plausible(quad: Point[], w: number, h: number): boolean {
  if (convexHull(quad).length !== 4) return false;
  const slackX = FRAME_SLACK_SHARE * w;
  const slackY = FRAME_SLACK_SHARE * h;
  if (quad.some((p) => p.x < -slackX || p.y < -slackY || p.x > w + slackX || p.y > h + slackY)) return false;
  const share = polygonArea(quad) / (w * h);
  return share >= PAGE_MIN_AREA_SHARE && share <= PAGE_MAX_AREA_SHARE && smallestCorner(quad) >= QUAD_MIN_CORNER_DEGREES;
}

/** The outline of the largest bright region (Otsu), when it is nearly a quadrilateral: a candidate beside the Hough lines'. */
function brightRegionQuad(small: Small): Point[] | undefined {
  const { data, width: w, height: h } = small;
  const threshold = otsuThreshold(data);
  const label = new Int32Array(w * h);
  let bestLabel = 0;
  let bestSize = 0;
  let next = 0;
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (data[start] <= threshold || label[start]) continue;
    next++;
    let size = 0;
    label[start] = next;
    stack.push(start);
    while (stack.length > 0) {
      const index = stack.pop()!;
      size++;
      const x = index % w;
      const neighbours = [x > 0 ? index - 1 : -1, x < w - 1 ? index + 1 : -1, index - w, index + w];
      for (const n of neighbours) {
        if (n >= 0 && n < w * h && data[n] > threshold && !label[n]) {
          label[n] = next;
          stack.push(n);
        }
      }
    }
    if (size > bestSize) {
      bestSize = size;
      bestLabel = next;
    }
  }
  if (bestSize < PAGE_MIN_AREA_SHARE * w * h) return undefined;
  // The region's leftmost and rightmost pixel of every row are enough for its convex hull.
  const edge: Point[] = [];
  for (let y = 0; y < h; y++) {
    let first = -1;
    let last = -1;
    for (let x = 0; x < w; x++) {
      if (label[y * w + x] === bestLabel) {
        if (first < 0) first = x;
        last = x;
      }
    }
    if (first >= 0) edge.push({ x: first, y }, { x: last + 1, y });
  }
  const quad = reduceToQuad(convexHull(edge));
  if (quad.length < 4 || bestSize < QUAD_MIN_FILL * polygonArea(quad)) return undefined;
  return orderCorners(quad);
}

/**
 * The page's corners in a grey image (top-left, top-right, bottom-right, bottom-left, in the
 * image's pixels), or undefined when no page outline stands out from a background: a scan or a
 * crop that is all page, a page on a background as bright as paper, a page running off the frame.
 * Candidates: every quadrilateral of two near-horizontal and two near-vertical Hough lines, and
 * the outline of the largest bright region; the one whose sides are most a paper edge
 * (`outlineScore`), larger ones first on a near tie, wins.
 */
export async function findPageQuad(grey: Buffer, width: number, height: number): Promise<Point[] | undefined> {
  const scale = Math.min(1, QUAD_ANALYSIS_SIDE_PX / Math.max(width, height));
  const { data, info } = await sharp(grey, { raw: { width, height, channels: 1 } })
    .resize({ width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), fit: 'fill' })
    // Text and sensor noise fade at this blur; the paper's edge stays.
    .blur(1.5)
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const small: Small = { data, width: info.width, height: info.height };
  const lines = houghLines(small);
  const horizontal = lines.filter((line) => line.degrees >= 45 && line.degrees < 135);
  const vertical = lines.filter((line) => line.degrees < 45 || line.degrees >= 135);
  const candidates: Point[][] = [];
  const region = brightRegionQuad(small);
  if (region) candidates.push(refineQuad(small, region));
  for (let a = 0; a < horizontal.length; a++) {
    for (let b = a + 1; b < horizontal.length; b++) {
      for (let c = 0; c < vertical.length; c++) {
        for (let d = c + 1; d < vertical.length; d++) {
          const corners = [
            intersection(horizontal[a], vertical[c]),
            intersection(horizontal[a], vertical[d]),
            intersection(horizontal[b], vertical[d]),
            intersection(horizontal[b], vertical[c]),
          ];
          if (corners.some((p) => p === undefined)) continue;
          candidates.push(orderCorners(corners as Point[]));
        }
      }
    }
  }
  let best: { quad: Point[]; value: number } | undefined;
  for (const quad of candidates) {
    if (!plausible(quad, small.width, small.height)) continue;
    const score = outlineScore(small, quad);
    if (score === 0) continue;
    const value = score + 0.3 * (polygonArea(quad) / (small.width * small.height));
    if (!best || value > best.value) best = { quad, value };
  }
  return best?.quad.map((p) => ({ x: p.x / scale, y: p.y / scale }));
}

/** The homography (3×3, row-major, h33 = 1) that maps `from[i]` to `to[i]` for four point pairs. */
export function homography(from: Point[], to: Point[]): number[] {
  // Eight equations in eight unknowns, solved by Gaussian elimination with partial pivoting.
  const rows: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const { x, y } = from[i];
    const { x: u, y: v } = to[i];
    rows.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    rows.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let col = 0; col < 8; col++) {
    let pivot = col;
    for (let r = col + 1; r < 8; r++) if (Math.abs(rows[r][col]) > Math.abs(rows[pivot][col])) pivot = r;
    [rows[col], rows[pivot]] = [rows[pivot], rows[col]];
    for (let r = 0; r < 8; r++) {
      if (r === col) continue;
      const factor = rows[r][col] / rows[col][col];
      for (let c = col; c < 9; c++) rows[r][c] -= factor * rows[col][c];
    }
  }
  return [...rows.map((row, i) => row[8] / row[i]), 1];
}

/**
 * The page cut out of a grey image and seen square-on: the output is as wide as the page's longer
 * horizontal edge and as tall as its longer vertical one, each output pixel sampled (bilinear)
 * where the homography puts it in the photo, a thin band at each edge trimmed.
 */
export function warpPage(grey: Buffer, width: number, height: number, corners: Point[]): { data: Buffer; width: number; height: number } {
  const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);
  const [tl, tr, br, bl] = corners;
  const outWidth = Math.round(Math.max(distance(tl, tr), distance(bl, br)));
  const outHeight = Math.round(Math.max(distance(tl, bl), distance(tr, br)));
  const trimX = Math.round(outWidth * EDGE_TRIM_SHARE);
  const trimY = Math.round(outHeight * EDGE_TRIM_SHARE);
  const m = homography(
    [
      { x: 0, y: 0 },
      { x: outWidth, y: 0 },
      { x: outWidth, y: outHeight },
      { x: 0, y: outHeight },
    ],
    corners,
  );
  const w = outWidth - 2 * trimX;
  const h = outHeight - 2 * trimY;
  const out = Buffer.alloc(w * h, 255);
  for (let oy = 0; oy < h; oy++) {
    const y = oy + trimY + 0.5;
    for (let ox = 0; ox < w; ox++) {
      const x = ox + trimX + 0.5;
      const z = m[6] * x + m[7] * y + m[8];
      const sx = (m[0] * x + m[1] * y + m[2]) / z - 0.5;
      const sy = (m[3] * x + m[4] * y + m[5]) / z - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= width || y0 + 1 >= height) continue;
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * width + x0;
      const top = grey[i] + (grey[i + 1] - grey[i]) * fx;
      const bottom = grey[i + width] + (grey[i + width + 1] - grey[i + width]) * fx;
      out[oy * w + ox] = Math.round(top + (bottom - top) * fy);
    }
  }
  return { data: out, width: w, height: h };
}
