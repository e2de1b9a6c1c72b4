// The public API but init(), shared by the entries (index.ts, asset.ts, workerd.ts), which differ
// only in how they load the WebAssembly module.
export { erfc, normalSf, normalLogSf, normalIsf } from './math/special.js';
export { gaussianDelta, gaussianMu, gaussianEpsilon } from './accounting/profile.js';
export {
  calibrateGaussian,
  calibrateLaplace,
  type Groups,
  ALLOCATIONS,
  type Allocation,
  type Calibration,
  type LaplaceCalibrationOptions,
  type GaussianCalibration,
  type GaussianCalibrationOptions,
  type LaplaceCalibration,
  type ProfileOptions,
} from './calibrate/allocations.js';
export { calibrateStaircase, type StaircaseCalibration, type StaircaseCalibrationOptions } from './calibrate/staircase.js';
export { staircase2dError, staircaseNormError, type StaircaseNormOptions } from './calibrate/staircase-norms.js';
export { createRng, type Rng, type RngOptions } from './noise/random.js';
export {
  gaussianNoise,
  gaussianNoiseInto,
  addGaussianNoise,
  laplaceNoise,
  laplaceNoiseInto,
  addLaplaceNoise,
  type GroupScales,
  type ScalesArgument,
  type SampleOptions,
} from './noise/samplers.js';
export { wasmVector, type WasmVector } from './noise/wasm-vector.js';
export { staircaseNoise, type StaircaseShape } from './noise/staircase.js';
export { type StaircaseNormShape, staircaseNormNoise } from './noise/staircase-norm.js';
export {
  gaussianNoiseParallel,
  addGaussianNoiseParallel,
  laplaceNoiseParallel,
  addLaplaceNoiseParallel,
  type ParallelOptions,
} from './noise/parallel.js';
export {
  correlatedSum,
  NEIGHBOURS,
  type CorrelatedSumOptions,
  type CorrelatedSumMechanism,
  type CorrelatedRelease,
  type CorrelatedNoise,
  type Neighbours,
} from './mechanisms/correlated.js';
export { gaussianPrivacy, laplacePrivacy, type AccountingOptions } from './accounting/independent.js';
export {
  compose,
  subsample,
  randomAllocation,
  type AllocationOptions,
  type Sampling,
  type PoissonSampling,
  type FixedSizeSampling,
  type Composable,
  type ComposeOptions,
  type FromDpEvent,
  type Repeated,
} from './accounting/combinators.js';
export type {
  EpsilonRange,
  PldPrivacy,
  ApproximatePrivacy,
  GdpPrivacy,
  Privacy,
  PrivacyForm,
  PrivacyNoise,
  PurePrivacy,
  ZcdpPrivacy,
} from './accounting/privacy.js';
export type { DpEventJson } from './accounting/dp-event.js';
export { type BudgetJson, type BudgetKey, createBudget, type PrivacyBudget, restoreBudget, signBudget, type Spending } from './accounting/ledger.js';
export type { EventJson } from './accounting/event-json.js';
export type { ApproximateTarget, PrivacyTarget, GaussianTarget, GdpTarget, PureTarget, ZcdpTarget } from './core/target.js';
export {
  gaussianMechanism,
  laplaceMechanism,
  type GaussianMechanism,
  type GaussianMechanismOptions,
  type LaplaceMechanism,
  type LaplaceMechanismOptions,
  type ModeChoice,
} from './mechanisms/independent.js';
export type { ReleaseOptions, VectorReleaseOptions } from './mechanisms/release-options.js';
export { staircaseMechanism, type StaircaseMechanism, type StaircaseMechanismOptions } from './mechanisms/staircase.js';
export { type StaircaseNormMechanism, type StaircaseNormMechanismOptions, staircaseNormMechanism } from './mechanisms/staircase-norm.js';
export { recommend, type Recommendation, type RecommendOptions } from './calibrate/recommend.js';
export { dpsgd, type DpsgdOptions, type DpsgdPlan, perLayerNoise, type PerLayerNoise, type PerLayerNoiseOptions } from './applications/dpsgd.js';
export {
  covarianceSensitivity,
  gramMatrix,
  privateCovariance,
  type CovarianceClip,
  type PrivateCovarianceOptions,
  type PrivateCovariance,
} from './applications/pca.js';
export { symmetricEigen, topEigenvectors, subspaceError, type SymmetricEigen } from './applications/subspaces.js';
export { syntheticPcaData, type SyntheticPcaOptions, type SyntheticPcaData } from './applications/synthetic-pca.js';
export {
  privateCoordinateDescent,
  coordinateDescent,
  objective,
  coordinateSmoothness,
  LOSSES,
  NOISE_WEIGHTS,
  type Loss,
  type NoiseWeights,
  type CoordinateDescentProblem,
  type CoordinateDescentOptions,
  type PrivateCoordinateDescentOptions,
  type PrivateCoordinateDescentResult,
} from './applications/coordinate-descent.js';
export { gini } from './calibrate/gini.js';
export { MODES, type Mode } from './mechanisms/grid.js';
export { NOISES, type NoiseName } from './noise/families.js';
