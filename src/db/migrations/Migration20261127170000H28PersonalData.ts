import { Migration } from '@mikro-orm/migrations';

/**
 * Personal data at rest (audit N11, src/auth/personal-data.ts). `personal_data_key` holds the
 * random keys of the keyed digests that stand in for personal values where SQL needs equality,
 * sealed by the master key (a rotation re-wraps them). `phone_otp` counts codes per number on
 * `phone_digest` instead of the number, which becomes nullable and is emptied; the JSON documents
 * are sealed in place. Both are done by the service at start (`sealLegacyPersonalData`), in
 * batches, because only the service holds the master key: this migration only makes room.
 */
export class Migration20261127170000H28PersonalData extends Migration {
  override name = 'Migration20261127170000H28PersonalData';

  override up(): void {
    this.addSql(`create table personal_data_key (
      scope text primary key,
      key_sealed text not null,
      created_at timestamptz not null default now()
    );`);
    this.addSql(`alter table phone_otp add column phone_digest text null;`);
    this.addSql(`alter table phone_otp alter column phone drop not null;`);
    this.addSql(`create index phone_otp_phone_digest_created_index on phone_otp (phone_digest, created_at desc);`);
    this.addSql(`drop index if exists phone_otp_phone_created_index;`);
  }

  override down(): void {
    this.addSql(`create index if not exists phone_otp_phone_created_index on phone_otp (phone, created_at desc);`);
    this.addSql(`drop index if exists phone_otp_phone_digest_created_index;`);
    this.addSql(`alter table phone_otp drop column if exists phone_digest;`);
    this.addSql(`drop table if exists personal_data_key;`);
  }
}
