import { Migration } from '@mikro-orm/migrations';

/**
 * Partial indexes over the rows an older version left in clear (src/auth/personal-data.ts,
 * `sealLegacyPersonalData`): each holds only rows still unsealed, so it is empty once the service
 * has sealed them and costs nothing on writes, and the check every start makes ("is anything left
 * in clear?") reads an empty index instead of scanning `session`, `session_node_result` and
 * `check_run` whole. The predicates are the walk's own, so the planner can use them.
 */
export class Migration20261127200000H30UnsealedProbe extends Migration {
  override name = 'Migration20261127200000H30UnsealedProbe';

  override up(): void {
    for (const [table, column, key] of UNSEALED) {
      this.addSql(
        `create index ${table}_${column}_unsealed_index on ${table} (${key})
           where ${column} is not null and jsonb_typeof(${column}) = 'object' and ${column} -> '_sealed' is null and ${column} <> '{}'::jsonb;`,
      );
    }
    this.addSql(`create index phone_otp_phone_unsealed_index on phone_otp (id) where phone is not null;`);
  }

  override down(): void {
    for (const [table, column] of UNSEALED) this.addSql(`drop index if exists ${table}_${column}_unsealed_index;`);
    this.addSql(`drop index if exists phone_otp_phone_unsealed_index;`);
  }
}

/** Table, JSON column and first key column of each sealed personal-data column. */
const UNSEALED: readonly (readonly [string, string, string])[] = [
  ['session_node_result', 'details', 'session_id'],
  ['session', 'expected_details', 'id'],
  ['session', 'contact_details', 'id'],
  ['check_run', 'result', 'id'],
];
