// A user's CommonJS script (test/install.long.test.ts): dpnoise's CommonJS build, where Node cannot
// require ES modules (before 20.19). The budget and the generator come from require('dpnoise') and
// are used by require('dpnoise/aggregate'), so the two entries must share one copy of dpnoise's
// state. What it releases: releases.cjs.
const { createBudget, createRng } = require('dpnoise');
const { aggregate } = require('dpnoise/aggregate');
const releases = require('./releases.cjs');

releases({ createBudget, createRng, aggregate });
