/**
 * The `dpnoise/tfjs` entry: private training of TensorFlow.js models (DP-SGD with per-example
 * clipping and optimal per-layer noise), through the optional peer dependency @tensorflow/tfjs.
 *
 * @module dpnoise/tfjs
 */
// The `dpnoise/tfjs` entry: privateTraining (training.ts). It loads the WebAssembly module as the
// default entry does, and shares its state (budgets, generators) with it.
import '../wasm/embedded-init.js';
export type { Clipping } from './clipping.js';
export type { LossName } from './losses.js';
export {
  type EpochLogs,
  type PrivateFitOptions,
  type PrivateFitResult,
  type PrivateTraining,
  type PrivateTrainingOptions,
  privateTraining,
  type StepInfo,
} from './training.js';
