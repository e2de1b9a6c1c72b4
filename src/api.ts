// The public API but init(), shared by the entries (index.ts, asset.ts, workerd.ts), which differ
// only in how they load the WebAssembly module.
export { erfc, normalSf, normalLogSf, normalIsf } from './noise/special.js';
export { gaussianDelta, gaussianMu, gaussianEpsilon } from './noise/profile.js';
export {
  calibrateGaussian,
  calibrateLaplace,
  type Groups,
  ALLOCATIONS,
  type Allocation,
  type Calibration,
  type CalibrationOptions,
  type GaussianCalibration,
  type GaussianCalibrationOptions,
  type LaplaceCalibration,
} from './calibrate/allocations.js';
export { createRng, type Rng, type RngOptions } from './noise/random.js';
export {
  gaussianNoise,
  gaussianNoiseInto,
  addGaussianNoise,
  laplaceNoise,
  laplaceNoiseInto,
  addLaplaceNoise,
  type GroupScales,
  type SampleOptions,
} from './noise/samplers.js';
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
export {
  gaussianPrivacy,
  laplacePrivacy,
  compose,
  type AccountingOptions,
  type GaussianPrivacy,
  type LaplacePrivacy,
  type MixedPrivacy,
  type Privacy,
  type ZcdpPrivacy,
} from './accounting/privacy.js';
export {
  gaussianMechanism,
  laplaceMechanism,
  recommend,
  type GaussianMechanism,
  type GaussianMechanismOptions,
  type LaplaceMechanism,
  type LaplaceMechanismOptions,
  type Recommendation,
} from './mechanisms/independent.js';
export { perLayerNoise, type PerLayerNoise, type PerLayerNoiseOptions } from './applications/dpsgd.js';
export {
  covarianceSensitivity,
  gramMatrix,
  privateCovariance,
  PCA_MECHANISMS,
  type CovarianceClip,
  type PcaMechanism,
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
