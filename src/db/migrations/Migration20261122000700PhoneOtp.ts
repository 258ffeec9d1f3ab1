import { Migration } from '@mikro-orm/migrations';

/** SMS one-time codes of `phone_verification` steps, stored as keyed digests; also the send log rate limits read. */
export class Migration20261122000700PhoneOtp extends Migration {
  override name = 'Migration20261122000700PhoneOtp';

  override up(): void {
    this.addSql(`create table phone_otp (
      id uuid primary key,
      tenant_id uuid not null references tenant (id) on delete cascade,
      session_id uuid not null references session (id) on delete cascade,
      phone text not null,
      code_digest text not null,
      attempts integer not null default 0 check (attempts >= 0),
      status text not null check (status in ('active', 'superseded', 'verified', 'exhausted')),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      closed_at timestamptz null
    );`);
    // At most one live code per session: a new request supersedes the previous one.
    this.addSql(`create unique index phone_otp_one_active_index on phone_otp (session_id) where status = 'active';`);
    this.addSql(`create index phone_otp_session_created_index on phone_otp (session_id, created_at desc);`);
    this.addSql(`create index phone_otp_phone_created_index on phone_otp (phone, created_at desc);`);
  }

  override down(): void {
    this.addSql(`drop table if exists phone_otp;`);
  }
}
