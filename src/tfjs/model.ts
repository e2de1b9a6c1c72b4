// The model as private training runs it: a chain of layers, each either a supported trainable
// layer run by hand (runner.ts), or run by tfjs itself when it has no weights and acts on each
// example alone, or is frozen. Any other layer is refused by name before training: a layer whose
// per-example gradients dpnoise cannot compute is never trained without privacy.
import type * as tf from '@tensorflow/tfjs';
import { conv2dRunner } from './conv2d.js';
import { denseRunner } from './dense.js';
import { embeddingRunner } from './embedding.js';
import { layerNormalizationRunner } from './layer-normalization.js';
import { type Layer, type Runner, weightName } from './runner.js';

/** The trainable layers supported, with what of their configuration is not. */
const TRAINABLE: Record<string, { runner: (layer: Layer) => Runner; unsupported?: (config: Record<string, unknown>, rank: number) => string | undefined }> = {
  Dense: { runner: denseRunner },
  Conv2D: {
    runner: conv2dRunner,
    unsupported: (config) => (config.dataFormat === 'channelsFirst' ? "dataFormat 'channelsFirst' (use 'channelsLast')" : undefined),
  },
  Embedding: {
    runner: embeddingRunner,
    unsupported: (config) => (config.maskZero ? 'maskZero (its mask would reach layers that do not take masks here)' : undefined),
  },
  LayerNormalization: {
    runner: layerNormalizationRunner,
    unsupported: (config, rank) => {
      const axis = config.axis;
      const last = (a: unknown) => a === -1 || a === rank - 1;
      return last(axis) || (Array.isArray(axis) && axis.length === 1 && last(axis[0])) ? undefined : 'normalization over axes other than the last';
    },
  },
};

/** Layers without weights whose output for an example depends on that example alone: tfjs runs them (in training mode, for dropout). */
const PER_EXAMPLE = [
  'Activation',
  'AveragePooling1D',
  'AveragePooling2D',
  'Cropping2D',
  'Dropout',
  'ELU',
  'Flatten',
  'GlobalAveragePooling1D',
  'GlobalAveragePooling2D',
  'GlobalMaxPooling1D',
  'GlobalMaxPooling2D',
  'LeakyReLU',
  'MaxPooling1D',
  'MaxPooling2D',
  'Permute',
  'ReLU',
  'RepeatVector',
  'Reshape',
  'Softmax',
  'SpatialDropout1D',
  'ThresholdedReLU',
  'UpSampling2D',
  'ZeroPadding2D',
];

/** A trainable layer's part in a step. */
export interface Trainable {
  readonly runner: Runner;
  /** Its trainable variables, in the order of the layer's trainableWeights, with their names in the runner's pieces. */
  readonly weights: ReadonlyArray<{ readonly name: string; readonly variable: tf.Variable }>;
  /** Its output shape without the batch: the probe's. */
  readonly outputShape: readonly number[];
}

/** One layer of the chain: run by hand when `trainable` is set, else by tfjs. */
export interface Stage {
  readonly layer: Layer;
  readonly trainable?: Trainable;
}

function refuse(layer: Layer, why: string): never {
  throw new TypeError(`dpnoise: layer '${layer.name}' (${layer.getClassName()}) ${why}; private training refuses it rather than train without privacy.`);
}

/** A layer's options that would change training outside what is clipped and noised: regularizers (a data-dependent penalty for activity) and constraints. */
function untracked(config: Record<string, unknown>): string | undefined {
  return Object.keys(config).find((key) => (key.endsWith('Regularizer') || key.endsWith('Constraint')) && config[key] != null);
}

/** Each layer's single shape (a multi-output layer is refused by its class). */
function outputShapeOf(layer: Layer): readonly number[] {
  return (layer.outputShape as Array<number | null>).slice(1) as number[];
}

/** The stage of one layer, or a TypeError naming it. */
function stageOf(layer: Layer): Stage {
  const className = layer.getClassName();
  if (!layer.built) refuse(layer, 'is not built: give the first layer an `inputShape`');
  const config = layer.getConfig() as Record<string, unknown>;
  const option = untracked(config);
  if (option !== undefined) refuse(layer, `has a ${option}, which private training does not apply`);
  const supported = TRAINABLE[className];
  if (supported && layer.trainable && layer.trainableWeights.length > 0) {
    const reason = supported.unsupported?.(config, outputShapeOf(layer).length + 1);
    if (reason !== undefined) refuse(layer, `has ${reason}, which private training does not support`);
    const weights = layer.trainableWeights.map((w) => ({ name: weightName(w), variable: w.read() as tf.Variable }));
    return { layer, trainable: { runner: supported.runner(layer), weights, outputShape: outputShapeOf(layer) } };
  }
  if (supported || (PER_EXAMPLE.includes(className) && layer.weights.length === 0)) return { layer };
  refuse(
    layer,
    `is not supported by private training: per-example gradients are computed for ${Object.keys(TRAINABLE).join(', ')}, and tfjs runs layers without weights that act on each example alone (${PER_EXAMPLE.join(', ')})`,
  );
}

/**
 * The model's layers as a chain of stages: a tf.sequential, or a tf.model whose layers each take
 * the previous one's output. Refuses, by name, every layer private training cannot handle.
 */
export function readModel(model: tf.LayersModel): Stage[] {
  if (model.inputs.length !== 1 || model.outputs.length !== 1) {
    throw new TypeError(`dpnoise: \`model\` must have one input and one output; got ${model.inputs.length} and ${model.outputs.length}.`);
  }
  const layers = model.layers.filter((layer) => layer.getClassName() !== 'InputLayer');
  layers.forEach((layer, i) => {
    const nodes = layer.inboundNodes;
    const from = nodes.length === 1 && nodes[0]!.inboundLayers.length === 1 ? nodes[0]!.inboundLayers[0] : undefined;
    const chained = i === 0 ? from?.getClassName() === 'InputLayer' : from === layers[i - 1];
    if (!chained) refuse(layer, 'does not take the output of the layer before it alone: private training takes a chain of layers (a tf.sequential)');
  });
  if (layers.length === 0 || model.outputs[0]!.sourceLayer !== layers.at(-1)) throw new TypeError('dpnoise: `model` must end with its last layer.');
  return layers.map(stageOf);
}
