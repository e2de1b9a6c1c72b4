// A user's CommonJS script: dpnoise/tfjs by require(), its CommonJS build (on Node 20.0.0 too). What it prints: training-run.cjs.
const tf = require('@tensorflow/tfjs');
const { createRng } = require('dpnoise');
const { privateTraining } = require('dpnoise/tfjs');
const trainingRun = require('./training-run.cjs');

trainingRun({ tf, createRng, privateTraining });
