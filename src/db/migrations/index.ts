import { Migration20261122000000Foundation } from './Migration20261122000000Foundation.js';
import { Migration20261122000100CheckRuns } from './Migration20261122000100CheckRuns.js';
import { Migration20261122000200Sessions } from './Migration20261122000200Sessions.js';
import { Migration20261122000300AmlEntities } from './Migration20261122000300AmlEntities.js';

/** Every migration in order; listed explicitly so tsx, vitest and a bundle all find the same set. */
export const MIGRATIONS = [
  Migration20261122000000Foundation,
  Migration20261122000100CheckRuns,
  Migration20261122000200Sessions,
  Migration20261122000300AmlEntities,
];
