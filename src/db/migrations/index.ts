import { Migration20261122000000Foundation } from './Migration20261122000000Foundation.js';

/** Every migration in order; listed explicitly so tsx, vitest and a bundle all find the same set. */
export const MIGRATIONS = [Migration20261122000000Foundation];
