/**
 * The inner loop of the in-memory duplicate-face scan (src/duplicates/template-index.ts): the dot
 * products of one probe with N stored templates (256 signed bytes each), exact in 32-bit integers.
 * Plain JavaScript does about one multiply-add per nanosecond here (100k templates: 25.6M of them,
 * 30–60 ms on this machine); a WebAssembly SIMD loop does sixteen at a time (a few ms).
 *
 * The module is small enough to write out directly, so it is assembled here from its opcodes
 * (WebAssembly core spec §5, SIMD opcodes 0xFD …) rather than shipped as a binary or built by a
 * toolchain. It imports its memory; the caller lays out, in that memory:
 * - at `probe`: the probe widened to 256 signed 16-bit values (512 bytes);
 * - at `rows`: `n` templates of 256 signed bytes, one after the other;
 * - at `out`: room for `n` 32-bit results, written in row order.
 * Each result is Σ probe[i]·row[i], at most 256·128·127 in magnitude: exact in 32 bits.
 */
import { TEMPLATE_DIMENSION } from '../engines/face/template.js';

/** Bytes of one stored template in the kernel's memory. */
export const ROW_BYTES = TEMPLATE_DIMENSION;
/** Bytes of the widened probe (16-bit values). */
export const PROBE_BYTES = TEMPLATE_DIMENSION * 2;

/** Unsigned LEB128, as the binary format writes sizes, indexes and offsets. */
function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

/** A section: its id and its contents, prefixed by their size. */
const section = (id: number, contents: number[]) => [id, ...leb(contents.length), ...contents];
/** A name: its UTF-8 bytes prefixed by their length. */
const name = (text: string) => [...leb(text.length), ...Buffer.from(text, 'utf8')];

// Instructions used (core and SIMD opcodes).
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_CONST = 0x41;
const I32_ADD = 0x6a;
const I32_LT_U = 0x49;
const I32_EQZ = 0x45;
const I32_STORE = 0x36;
const BLOCK = 0x02;
const LOOP = 0x03;
const BR_IF = 0x0d;
const END = 0x0b;
const EMPTY = 0x40;
const simd = (opcode: number) => [0xfd, ...leb(opcode)];
const V128_LOAD = (offset: number) => [...simd(0x00), 0, ...leb(offset)];
const V128_CONST_ZERO = [...simd(0x0c), ...new Array<number>(16).fill(0)];
const I32X4_EXTRACT_LANE = (lane: number) => [...simd(0x1b), lane];
const I16X8_EXTEND_LOW_I8X16_S = simd(0x87);
const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88);
const I32X4_ADD = simd(0xae);
const I32X4_DOT_I16X8_S = simd(0xba);

/** `dots(probe, rows, n, out)`; params 0–3, locals 4 (row index), 5 (row address), 6 (v128 sum). */
function dotsBody(): number[] {
  const [probe, rows, n, out, r, row, sum] = [0, 1, 2, 3, 4, 5, 6];
  const code: number[] = [BLOCK, EMPTY, LOCAL_GET, n, I32_EQZ, BR_IF, 0, LOCAL_GET, rows, LOCAL_SET, row, LOOP, EMPTY];
  code.push(...V128_CONST_ZERO, LOCAL_SET, sum);
  // Unrolled: 16 chunks of 16 bytes; each chunk's low and high halves widened to 16 bits and
  // multiplied with the probe's matching 8 values, pairs summed into the four 32-bit lanes.
  for (let chunk = 0; chunk < TEMPLATE_DIMENSION / 16; chunk++)
    for (const [extend, half] of [
      [I16X8_EXTEND_LOW_I8X16_S, 0],
      [I16X8_EXTEND_HIGH_I8X16_S, 16],
    ] as const)
      code.push(
        LOCAL_GET,
        sum,
        LOCAL_GET,
        row,
        ...V128_LOAD(chunk * 16),
        ...extend,
        LOCAL_GET,
        probe,
        ...V128_LOAD(chunk * 32 + half),
        ...I32X4_DOT_I16X8_S,
        ...I32X4_ADD,
        LOCAL_SET,
        sum,
      );
  code.push(LOCAL_GET, out);
  code.push(LOCAL_GET, sum, ...I32X4_EXTRACT_LANE(0));
  for (const lane of [1, 2, 3]) code.push(LOCAL_GET, sum, ...I32X4_EXTRACT_LANE(lane), I32_ADD);
  code.push(I32_STORE, 2, 0);
  code.push(LOCAL_GET, out, I32_CONST, 4, I32_ADD, LOCAL_SET, out);
  code.push(LOCAL_GET, row, I32_CONST, ...[0x80, 0x02] /* 256, signed LEB */, I32_ADD, LOCAL_SET, row);
  code.push(LOCAL_GET, r, I32_CONST, 1, I32_ADD, LOCAL_TEE, r, LOCAL_GET, n, I32_LT_U, BR_IF, 0, END, END, END);
  // Locals: two i32 (r, row), one v128 (sum).
  const locals = [2, 2, 0x7f, 1, 0x7b];
  const body = [...locals, ...code];
  return [...leb(body.length), ...body];
}

/** The module's bytes. */
function moduleBytes(): Uint8Array {
  const I32 = 0x7f;
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 4, I32, I32, I32, I32, 0]),
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('dots'), 0x00, 0]),
    ...section(10, [1, ...dotsBody()]),
  ]);
}

/** The part of a WebAssembly memory used here (the project's TypeScript libraries do not declare WebAssembly's types). */
export interface KernelMemory {
  readonly buffer: ArrayBuffer;
  /** Adds `pages` pages of 64 KiB; views of the old buffer are detached. */
  grow(pages: number): number;
}

/** The WebAssembly API as used here. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => KernelMemory;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

let compiled: object | undefined;

/** One kernel bound to one memory (one per in-memory index). */
export interface DotKernel {
  memory: KernelMemory;
  /** Writes the `n` dot products of the probe at `probe` with the rows at `rows` to `out` (byte addresses in `memory`). */
  dots(probe: number, rows: number, n: number, out: number): void;
}

/** A kernel over a new memory of `bytes` (rounded up to 64 KiB pages); grow it with `memory.grow`. */
export function createDotKernel(bytes: number): DotKernel {
  compiled ??= new wasm.Module(moduleBytes());
  const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
  const instance = new wasm.Instance(compiled, { env: { memory } });
  const dots = instance.exports.dots as (probe: number, rows: number, n: number, out: number) => void;
  return { memory, dots };
}
