// Random sources. The default is the platform CSPRNG (crypto.getRandomValues), read straight into
// WebAssembly memory. A seeded source is counter-based (assembly/noise/random.ts): the noise of
// coordinate i of the n-th call depends only on (seed, n, i), so it is the same for every chunk
// size, thread count, build and runtime. Every call draws a fresh stream: two calls with the same
// generator never repeat their noise, while two fresh generators with the same seed agree.
import { readOptions } from '../core/validate.js';
import { fillRandom } from '../wasm/host.js';
import type { WasmExports } from '../wasm/exports.js';

/**
 * A source of randomness for the samplers, made by `createRng`.
 *
 * @group Sampling
 */
export interface Rng {
  /** True for a seeded (reproducible, not secure) generator, false for the CSPRNG. */
  readonly seeded: boolean;
}

/**
 * Options of `createRng`.
 *
 * @group Sampling
 */
export interface RngOptions {
  /** Makes a deterministic generator for simulations and tests (never for real releases). */
  seed?: number | bigint | string | Uint8Array;
}

/** The randomness of one sampling call. */
export interface Stream {
  /** Prepares the module for this stream. */
  begin(w: WasmExports): void;
  /** Fills RANDOM with the primary words of coordinates [first, first + count). */
  words(w: WasmExports, first: number, count: number): void;
}

/** A source of streams: every call draws a new one. */
export abstract class RandomSource implements Rng {
  abstract readonly seeded: boolean;
  abstract stream(): Stream;
}

/** Fresh CSPRNG bytes for every word. */
export const cryptoStream: Stream = {
  begin(w) {
    w.resumePoolExtras(); // words left over from earlier calls are still unused; refilled when empty
  },
  words(w, _first, count) {
    fillRandom(w, w.randomPointer(), count * 8);
  },
};

class CryptoSource extends RandomSource {
  readonly seeded = false;
  constructor() {
    super();
    Object.freeze(this);
  }
  stream(): Stream {
    return cryptoStream;
  }
}

// 64-bit arithmetic for deriving stream keys (a few operations per call, so BigInt is fine).
const MASK = (1n << 64n) - 1n;
const GOLDEN = 0x9e3779b97f4a7c15n;

function mix64(z: bigint): bigint {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** An odd increment with enough bit transitions (SplittableRandom's mixGamma). */
function mixGamma(z: bigint): bigint {
  z = ((z ^ (z >> 33n)) * 0xff51afd7ed558ccdn) & MASK;
  z = ((z ^ (z >> 33n)) * 0xc4ceb9fe1a85ec53n) & MASK;
  z = (z ^ (z >> 33n)) | 1n;
  const t = z ^ (z >> 1n);
  const transitions = popcount32(Number(t & 0xffffffffn)) + popcount32(Number(t >> 32n));
  return transitions < 24 ? z ^ 0xaaaaaaaaaaaaaaaan : z;
}

/** The seed as bytes, with a type tag so that "1" and 1 differ; 42 and 42n are the same seed. */
function seedBytes(seed: unknown): Uint8Array {
  const tagged = (tag: string, body: Uint8Array) => {
    const out = new Uint8Array(body.length + 1);
    out[0] = tag.charCodeAt(0);
    out.set(body, 1);
    return out;
  };
  const text = new TextEncoder();
  if (typeof seed === 'bigint') return tagged('i', text.encode(seed.toString()));
  if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed)) {
      throw new RangeError(`dpnoise: \`seed\` must be a safe integer when it is a number; got ${seed}.`);
    }
    return tagged('i', text.encode(String(seed)));
  }
  if (typeof seed === 'string') return tagged('s', text.encode(seed));
  if (seed instanceof Uint8Array) return tagged('b', seed);
  throw new TypeError(`dpnoise: \`seed\` must be a number, bigint, string or Uint8Array; got ${typeof seed}.`);
}

/** Absorbs the seed bytes, 8 at a time, into two 64-bit lanes (a hash for seeding, not for security). */
function seedState(bytes: Uint8Array): [bigint, bigint] {
  let a = 0x6a09e667f3bcc908n;
  let b = 0xbb67ae8584caa73bn;
  for (let i = 0; i < bytes.length; i += 8) {
    let block = 0n;
    for (let j = Math.min(i + 8, bytes.length) - 1; j >= i; j--) block = (block << 8n) | BigInt(bytes[j]!);
    a = mix64(a ^ block);
    b = mix64((b + a + GOLDEN) & MASK);
  }
  const length = BigInt(bytes.length);
  return [mix64(a ^ length), mix64((b + length * GOLDEN) & MASK)];
}

/** One stream of the counter-based generator: word j is mix64(key + (j + 1) gamma). */
export class SeededStream implements Stream {
  constructor(
    readonly key: bigint,
    readonly gamma: bigint,
  ) {}
  begin(w: WasmExports): void {
    new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([this.key, this.gamma]);
    w.useSeededExtras();
  }
  words(w: WasmExports, first: number, count: number): void {
    w.seededWords(first, count);
  }
}

/** A seeded generator: frozen, its call count in a private field (which freezing leaves writable, and nothing outside can reach). */
class SeededSource extends RandomSource {
  readonly seeded = true;
  #calls = 0n;
  readonly #state: readonly [bigint, bigint];
  constructor(state: readonly [bigint, bigint]) {
    super();
    this.#state = state;
    Object.freeze(this);
  }
  stream(): SeededStream {
    this.#calls++;
    const key = mix64((this.#state[0] + this.#calls * GOLDEN) & MASK);
    const gamma = mixGamma((this.#state[1] + this.#calls * GOLDEN) & MASK);
    return new SeededStream(key, gamma);
  }
}

const cryptoSource = new CryptoSource();

/**
 * A random source for the samplers: without options the platform CSPRNG; with `{ seed }` a
 * deterministic counter-based generator (reproducible noise for simulations and tests, never
 * for protecting real data).
 *
 * @example
 * ```ts
 * import { createRng, gaussianNoise } from 'dpnoise';
 *
 * // One seed, one noise: for simulations and tests only.
 * const a = gaussianNoise(3, 1, { rng: createRng({ seed: 'experiment-1' }) });
 * const b = gaussianNoise(3, 1, { rng: createRng({ seed: 'experiment-1' }) });
 * console.log(a.every((x, i) => x === b[i])); // true
 * console.log(createRng().seeded); // false: the platform CSPRNG, the default
 * ```
 *
 * @group Sampling
 */
export function createRng(options?: RngOptions): Rng {
  if (options === undefined) return cryptoSource;
  const o = readOptions('options', options, ['seed']);
  if (o.seed === undefined) return cryptoSource;
  return new SeededSource(seedState(seedBytes(o.seed)));
}

/** The random source of a call's options `{ rng? }`: the CSPRNG when there are none. */
export function readRng(options: unknown): RandomSource {
  return sourceOf(options === undefined ? undefined : readOptions('options', options, ['rng']).rng);
}

/** The source to use for `rng` (an Rng from createRng, or the CSPRNG when undefined). */
export function sourceOf(rng: unknown): RandomSource {
  if (rng === undefined) return cryptoSource;
  if (rng instanceof RandomSource) return rng;
  if (typeof rng === 'object' && rng !== null && typeof (rng as { seeded?: unknown }).seeded === 'boolean') {
    throw new TypeError(
      "dpnoise: `rng` was made by createRng() of another copy of dpnoise (for example the CommonJS build, require('dpnoise'), while this is the ES module build, or the reverse): the two hold separate states, so make the generator with the createRng of the copy you call.",
    );
  }
  throw new TypeError(`dpnoise: \`rng\` must be a generator made by createRng(); got ${rng === null ? 'null' : typeof rng}.`);
}
