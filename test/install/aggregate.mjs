// A user's ES module in a project where the packed dpnoise and its peers were installed
// (test/install.long.test.ts). What it releases: releases.cjs.
import { createBudget, createRng } from 'dpnoise';
import { aggregate } from 'dpnoise/aggregate';
import releases from './releases.cjs';

releases({ createBudget, createRng, aggregate });
