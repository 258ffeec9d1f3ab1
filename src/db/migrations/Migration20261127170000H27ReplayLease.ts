import { Migration } from '@mikro-orm/migrations';

/**
 * A running workflow replay holds a lease (issue 27): `heartbeat_at` is set when a worker claims
 * it and after every batch, so the sweep can take over a replay whose worker was killed mid-run
 * (its lease ran out) instead of leaving it `running` for ever.
 */
export class Migration20261127170000H27ReplayLease extends Migration {
  override name = 'Migration20261127170000H27ReplayLease';

  override up(): void {
    this.addSql(`alter table workflow_replay add column heartbeat_at timestamptz null;`);
    this.addSql(`create index workflow_replay_unfinished_idx on workflow_replay (created_at) where status in ('queued', 'running');`);
  }

  override down(): void {
    this.addSql(`drop index if exists workflow_replay_unfinished_idx;`);
    this.addSql(`alter table workflow_replay drop column if exists heartbeat_at;`);
  }
}
