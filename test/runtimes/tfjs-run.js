// A few seeded steps of privateTraining, the same in the browser (tfjs-page.js) and in Node
// (tfjs.test.ts): 240 examples in 4 features, a 4-6-2 network, 5 Poisson steps at rate 0.2.
// Returns the steps taken, the epsilon the run reports, the accountant's epsilon for those steps,
// and the trained weights.
export async function trainFew({ tf, privateTraining, compose, createRng, subsample }) {
  const x = tf.tensor2d(Array.from({ length: 240 }, (_, i) => [Math.sin(i), Math.cos(3 * i), ((i * 7) % 11) / 11 - 0.5, ((i * 5) % 13) / 13 - 0.5]));
  const y = tf.oneHot(x.sum(1).greater(0).toInt(), 2).toFloat();
  const init = (seed) => tf.initializers.glorotNormal({ seed });
  const model = tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [4], units: 6, activation: 'relu', kernelInitializer: init(1) }),
      tf.layers.dense({ units: 2, activation: 'softmax', kernelInitializer: init(2) }),
    ],
  });
  try {
    const run = privateTraining(model, {
      loss: 'categoricalCrossentropy',
      optimizer: tf.train.sgd(0.5),
      epsilon: 2,
      delta: 1e-5,
      steps: 5,
      sampleRate: 0.2,
      clipNorms: [1, 1],
      rng: createRng({ seed: 'tfjs in the browser' }),
    });
    const { steps, epsilon } = await run.fit(x, y, { progress: false });
    const accountant = compose([{ privacy: subsample(run.mechanism.privacy, { rate: 0.2 }), times: steps }]).epsilon(1e-5);
    return { steps, epsilon, privacy: run.privacy.epsilon(1e-5), accountant, weights: model.getWeights().map((w) => Array.from(w.dataSync())) };
  } finally {
    model.dispose();
    tf.dispose([x, y]);
  }
}
