// A user's ES module: dpnoise/tfjs by import, with @tensorflow/tfjs (test/install.long.test.ts). What it prints: training-run.cjs.
import * as tf from '@tensorflow/tfjs';
import { createRng } from 'dpnoise';
import { privateTraining } from 'dpnoise/tfjs';
import trainingRun from './training-run.cjs';

await trainingRun({ tf, createRng, privateTraining });
