// Vectors that live in the WebAssembly module's memory (docs/noise.md, "Vectors in WebAssembly
// memory"): the caller fills and reads a Float64Array view of a block of that memory, and the
// samplers and the Gaussian, Laplace and correlated-sum mechanisms draw into it, or read it,
// where it is, with no copy in or out of the module. A vector is freed by free(), or else once it (and every view of
// it) is unreachable, by a FinalizationRegistry. A freed vector, or one of a module that init()
// has since replaced, is refused by every call before anything is read or charged.
import { type Entries, fail, failEntry, integerIn, type Shown } from '../core/validate.js';
import { firstOutsideOfBlock } from '../wasm/checks.js';
import { allocate, type Block, release } from '../wasm/heap.js';
import { wasm } from '../wasm/loader.js';

export type { Block } from '../wasm/heap.js';

/**
 * A vector of doubles in the WebAssembly module's memory, made by `wasmVector(length)`: the
 * samplers (`gaussianNoiseInto`, `addGaussianNoise`, their Laplace twins, and `scales`) and the
 * Gaussian and Laplace mechanisms' `release(query, { out })` (and correlatedSum's sums and
 * `out`) take it in place of a Float64Array and draw into it, or read it, without copying it in
 * or out of the module.
 *
 * @group Sampling
 */
export interface WasmVector {
  /** The number of doubles. */
  readonly length: number;
  /**
   * A Float64Array view of the vector's memory, to fill and to read. WebAssembly memory that
   * grows (a new vector, the accountant's work) detaches every earlier view of it: read `values`
   * again after such a call rather than keeping a view. Its `buffer` is the module's whole
   * memory: post or hand on `values.slice()`, never the view.
   */
  readonly values: Float64Array;
  /** True once free() has been called. */
  readonly freed: boolean;
  /** Returns the vector's memory to the module: the vector, and any view of it kept, must not be used after. A second call throws. */
  free(): void;
}

/** The live vectors' blocks; a freed vector keeps its entry with no block. */
const blocks = new WeakMap<object, { block: Block | undefined }>();

/** Frees the block of a vector that became unreachable without free() (where the runtime has FinalizationRegistry; else free() alone does). */
const registry = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<Block>(release) : undefined;

/** The property of a view that keeps its vector, and so its memory, alive while the view is. */
const OWNER = Symbol('dpnoise.WasmVector');

class Vector implements WasmVector {
  readonly length: number;
  #view: Float64Array | undefined;
  constructor(block: Block) {
    this.length = block.length;
    blocks.set(this, { block });
    registry?.register(this, block, this);
  }
  get values(): Float64Array {
    const block = blocks.get(this)!.block;
    if (block === undefined) throw new TypeError('dpnoise: this WasmVector was freed; its memory may hold another vector now.');
    // A view made before the memory grew is detached (its buffer no longer the memory's).
    if (this.#view === undefined || this.#view.buffer !== block.w.memory.buffer) {
      this.#view = viewOf(block);
      Object.defineProperty(this.#view, OWNER, { value: this });
    }
    return this.#view;
  }
  get freed(): boolean {
    return blocks.get(this)!.block === undefined;
  }
  free(): void {
    const state = blocks.get(this)!;
    if (state.block === undefined) throw new TypeError('dpnoise: this WasmVector was already freed.');
    registry?.unregister(this);
    release(state.block);
    state.block = undefined;
    this.#view = undefined;
  }
  get [Symbol.toStringTag](): string {
    return 'WasmVector';
  }
}

/**
 * A new vector of `length` zeros in the WebAssembly module's memory, for noise drawn in place:
 * pass it where a sampler or a Gaussian or Laplace mechanism's release takes a Float64Array, and
 * nothing is copied in or out of the module (bench/RESULTS.md, "In-place vectors"). Fill and read
 * it through `values`; free it with `free()` when done (else it is freed once unreachable).
 *
 * @example
 * ```ts
 * import { addGaussianNoise, wasmVector } from 'dpnoise';
 *
 * const v = wasmVector(4);
 * v.values.set([12.5, 7.25, 3.0, 0.5]);
 * addGaussianNoise(v, 1.5); // drawn where the values are
 * console.log(v.values.slice());
 * v.free();
 * ```
 *
 * @group Sampling
 */
export function wasmVector(length: number): WasmVector {
  const n = integerIn('length', length, { min: 0, max: 2 ** 29 });
  const block = allocate(wasm(), n);
  if (block === undefined) fail(RangeError, 'length', 'a length the WebAssembly memory can still hold (4 GiB in all)', n);
  return new Vector(block);
}

/** True for a vector made by wasmVector (freed or not). */
export function isWasmVector(value: unknown): value is WasmVector {
  return typeof value === 'object' && value !== null && blocks.has(value);
}

/** The block of the caller's vector `value` for a call now: refused when freed, or of a module init() has since replaced. */
function blockOf(name: string, value: WasmVector): Block {
  const block = blocks.get(value)!.block;
  if (block === undefined) throw new TypeError(`dpnoise: \`${name}\` must be a WasmVector that is not freed; got a freed WasmVector.`);
  if (block.w !== wasm()) {
    throw new TypeError(`dpnoise: \`${name}\` is a WasmVector of a WebAssembly module that init() has since replaced; make it again with wasmVector().`);
  }
  return block;
}

/**
 * The block of the caller's vector `value` for a call now, its length checked and (with `entries`)
 * its entries, where they are, as vector() checks an array: `beforeEntries` runs once the vector
 * and its length are accepted, before any entry is read. Its pointer stays valid if that grows
 * the memory; a view would not.
 */
export function moduleBlock(name: string, value: WasmVector, entries?: Entries, options: Shown & { length?: number; beforeEntries?: () => void } = {}): Block {
  const block = blockOf(name, value);
  const { length } = options;
  if (length !== undefined && block.length !== length) fail(RangeError, `${name}.length`, `${length} (one entry per coordinate)`, block.length);
  options.beforeEntries?.();
  const bad = entries ? firstOutsideOfBlock(block, entries) : -1;
  if (bad >= 0) failEntry(name, bad, viewOf(block)[bad]!, entries!, options);
  return block;
}

/** A view of a block's memory, made now (a view made before the memory grew is detached). */
export function viewOf(block: Block): Float64Array {
  return new Float64Array(block.w.memory.buffer, block.pointer, block.length);
}

/** An array, or a view made now of a block (for code that slices what it draws into). */
export function arrayOf(place: Float64Array | Block): Float64Array {
  return place instanceof Float64Array ? place : viewOf(place);
}
