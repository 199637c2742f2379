import { EngineError } from '../../core/errors.js';
import { DOT_I8_WASM_BASE64 } from './dot-i8-wasm.js';

/**
 * The scan kernels behind FlatVectorIndex: the WebAssembly SIMD module compiled from dot-i8.wat,
 * or, where this runtime has no WebAssembly SIMD, JS loops over the same memory with the same
 * results (exactly for int8, up to float rounding for f32). Both read and write one
 * WebAssembly.Memory the index owns; every pointer is a byte offset into it, and the layout
 * contract is the one at the top of dot-i8.wat (rows zero-padded to `dp`, int8 `dp` a multiple of
 * 16, f32 `dp` a multiple of 4).
 */

export type KernelName = 'wasm-simd' | 'js';
/** `auto`: SIMD when the runtime compiles the module, else JS. `simd` throws when unsupported. */
export type KernelPreference = 'auto' | 'simd' | 'js';

export interface ScanKernel {
  readonly name: KernelName;
  /** out[i] = i32 Σ q[j]·row_i[j], for n int8 rows of dp bytes. */
  dotI8(q: number, rows: number, n: number, dp: number, out: number): void;
  /** out[i] = f32 dot · scales[i] · qScale: the approximate cosine of each int8 row. */
  scoreI8(q: number, rows: number, scales: number, n: number, dp: number, qScale: number, out: number): void;
  /** out[i] = f32 Σ q[j]·row_i[j], for n float32 rows of dp floats. */
  dotF32(q: number, rows: number, n: number, dp: number, out: number): void;
  /** Writes to `out` (i32 slots, ascending) the indices i < n of the f32 `scores` with `!(scores[i] < t)`; returns how many. */
  atLeast(scores: number, n: number, t: number, out: number): number;
}

/**
 * The part of the WebAssembly JS API used here. The project compiles against ES2023 + @types/node
 * 20, which declare no `WebAssembly` global, so it is typed locally rather than widening the lib.
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  /** Adds `pages` of 64 KiB; throws RangeError past the maximum. */
  grow(pages: number): number;
}
interface WasmModule {
  readonly __brand?: 'WebAssembly.Module';
}
interface WasmApi {
  readonly Memory: new (descriptor: { initial: number; maximum?: number }) => WasmMemory;
  readonly Module: new (bytes: Uint8Array) => WasmModule;
  readonly Instance: new (mod: WasmModule, imports: Record<string, Record<string, unknown>>) => { readonly exports: unknown };
}

const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** Bytes in a WebAssembly page, the unit memory grows by. */
export const WASM_PAGE_BYTES = 65_536;
/** Pages in a full wasm32 memory (4 GiB). */
export const WASM_MAX_PAGES = 65_536;

/** A memory of `initialPages`, growable to 4 GiB. Throws when the runtime has no WebAssembly. */
export function createWasmMemory(initialPages: number): WasmMemory {
  if (!wasmApi) throw new EngineError('INTERNAL', { reason: 'this runtime has no WebAssembly' });
  return new wasmApi.Memory({ initial: initialPages, maximum: WASM_MAX_PAGES });
}

interface KernelExports {
  dot_i8(q: number, rows: number, n: number, dp: number, out: number): void;
  score_i8(q: number, rows: number, scales: number, n: number, dp: number, qScale: number, out: number): void;
  dot_f32(q: number, rows: number, n: number, dp: number, out: number): void;
  at_least(scores: number, n: number, t: number, out: number): number;
}

/**
 * Documented module-level cache: the compiled module (immutable, shareable by every index) and
 * whether this runtime accepts it. `resetKernelCache()` clears both for tests.
 */
let compiled: WasmModule | null | undefined;

function kernelModule(): WasmModule | null {
  if (compiled === undefined) {
    const bytes = Buffer.from(DOT_I8_WASM_BASE64, 'base64');
    // The feature probe: a runtime without SIMD (or without WebAssembly) rejects the module. One
    // compile, no `validate` first (which decodes the module a second time).
    compiled = null;
    if (wasmApi !== undefined) {
      try {
        compiled = new wasmApi.Module(bytes);
      } catch {
        // CompileError: no WebAssembly SIMD here
      }
    }
  }
  return compiled;
}

/** True when this runtime runs the WebAssembly SIMD kernel. */
export function simdSupported(): boolean {
  return kernelModule() !== null;
}

export function resetKernelCache(): void {
  compiled = undefined;
}

function wasmKernel(mod: WasmModule, memory: WasmMemory): ScanKernel {
  const x = new wasmApi!.Instance(mod, { env: { memory } }).exports as KernelExports;
  return {
    name: 'wasm-simd',
    dotI8: (q, rows, n, dp, out) => x.dot_i8(q, rows, n, dp, out),
    scoreI8: (q, rows, scales, n, dp, qScale, out) => x.score_i8(q, rows, scales, n, dp, qScale, out),
    dotF32: (q, rows, n, dp, out) => x.dot_f32(q, rows, n, dp, out),
    atLeast: (scores, n, t, out) => x.at_least(scores, n, t, out),
  };
}

/**
 * One int8 dot product, unrolled by 8 with int32 accumulation (`| 0` keeps V8 on small-integer
 * arithmetic). `dp` is a multiple of 16, so no tail loop.
 */
function dotI8Js(m: Int8Array, q: number, r: number, dp: number): number {
  let s0 = 0;
  let s1 = 0;
  for (let j = 0; j < dp; j += 8) {
    s0 = (s0 + m[q + j]! * m[r + j]! + m[q + j + 1]! * m[r + j + 1]! + m[q + j + 2]! * m[r + j + 2]! + m[q + j + 3]! * m[r + j + 3]!) | 0;
    s1 = (s1 + m[q + j + 4]! * m[r + j + 4]! + m[q + j + 5]! * m[r + j + 5]! + m[q + j + 6]! * m[r + j + 6]! + m[q + j + 7]! * m[r + j + 7]!) | 0;
  }
  return (s0 + s1) | 0;
}

function jsKernel(memory: WasmMemory): ScanKernel {
  return {
    name: 'js',
    dotI8(q, rows, n, dp, out) {
      const m = new Int8Array(memory.buffer);
      const o = new Int32Array(memory.buffer, out, n);
      for (let i = 0, r = rows; i < n; i++, r += dp) o[i] = dotI8Js(m, q, r, dp);
    },
    scoreI8(q, rows, scales, n, dp, qScale, out) {
      const m = new Int8Array(memory.buffer);
      const s = new Float32Array(memory.buffer, scales, n);
      const o = new Float32Array(memory.buffer, out, n);
      const qs = Math.fround(qScale);
      // The same f32 operation order as the SIMD kernel: dot · (scale · qScale).
      for (let i = 0, r = rows; i < n; i++, r += dp) o[i] = Math.fround(dotI8Js(m, q, r, dp)) * Math.fround(s[i]! * qs);
    },
    dotF32(q, rows, n, dp, out) {
      const f = new Float32Array(memory.buffer);
      const o = new Float32Array(memory.buffer, out, n);
      const qi = q >>> 2;
      for (let i = 0, r = rows >>> 2; i < n; i++, r += dp) {
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let j = 0; j < dp; j += 4) {
          s0 += f[qi + j]! * f[r + j]!;
          s1 += f[qi + j + 1]! * f[r + j + 1]!;
          s2 += f[qi + j + 2]! * f[r + j + 2]!;
          s3 += f[qi + j + 3]! * f[r + j + 3]!;
        }
        o[i] = s0 + s1 + (s2 + s3);
      }
    },
    atLeast(scores, n, t, out) {
      const s = new Float32Array(memory.buffer, scores, n);
      const o = new Int32Array(memory.buffer, out, n);
      const ft = Math.fround(t);
      let c = 0;
      for (let i = 0; i < n; i++) if (!(s[i]! < ft)) o[c++] = i;
      return c;
    },
  };
}

/** A kernel bound to `memory`. Throws when `simd` is demanded and the runtime cannot run it. */
export function createScanKernel(memory: WasmMemory, prefer: KernelPreference = 'auto'): ScanKernel {
  if (prefer === 'js') return jsKernel(memory);
  const mod = kernelModule();
  if (mod) return wasmKernel(mod, memory);
  if (prefer === 'simd') throw new EngineError('INVALID_ARGUMENT', { name: 'kernel', reason: '"simd" was asked for, and this runtime has no WebAssembly SIMD' });
  return jsKernel(memory);
}
