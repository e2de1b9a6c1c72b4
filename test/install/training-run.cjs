// What training.mjs and training.cjs print: a seeded private training run of a softmax layer on
// 100 examples (README, "Private training of TensorFlow.js models"): its steps, epsilon and
// trained weights as JSON, the same by import and by require().
module.exports = async function trainingRun({ tf, createRng, privateTraining }) {
  tf.enableProdMode();
  const x = tf.tensor2d(
    Array.from({ length: 400 }, (_, i) => Math.sin(i)),
    [100, 4],
  );
  const y = tf.oneHot(x.sum(1).greater(0).toInt(), 2).toFloat();
  const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 2, activation: 'softmax', kernelInitializer: 'zeros' })] });
  const run = privateTraining(model, {
    loss: 'categoricalCrossentropy',
    optimizer: tf.train.sgd(0.5),
    epsilon: 2,
    delta: 1e-5,
    steps: 3,
    sampleRate: 0.2,
    clipNorms: [1],
    rng: createRng({ seed: 1 }),
  });
  const { steps, epsilon } = await run.fit(x, y, { progress: false });
  console.log(JSON.stringify({ steps, epsilon, weights: Array.from(model.getWeights()[0].dataSync()) }));
};
