import { Migration } from '@mikro-orm/migrations';

/**
 * Status changes announce themselves in their own transaction (issue 28.7): an insert trigger on
 * `outbox_event` sends `NOTIFY idv_events` with the event (or only its id past 7,500 bytes, under
 * PostgreSQL's 8,000-byte payload limit), and PostgreSQL delivers a notification exactly when its
 * transaction commits, in commit order. The API servers used to send it themselves after the
 * commit, on another connection: a server killed between the two left a committed change that no
 * other server's subscribers ever received (found by test/operations/scale-out.test.ts). Every
 * write path (the ORM flush, the one-statement create) goes through the trigger alike.
 */
export class Migration20261127000200H28AnnounceOnCommit extends Migration {
  override name = 'Migration20261127000200H28AnnounceOnCommit';

  override up(): void {
    this.addSql(`create or replace function outbox_event_announce() returns trigger language plpgsql as $$
      declare
        whole text;
      begin
        whole := json_build_object('e', json_build_object(
          'id', new.id, 'seq', new.seq, 'tenantId', new.tenant_id, 'environment', new.environment, 'type', new.type,
          'sessionId', new.session_id, 'payload', new.payload,
          'createdAt', to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text;
        if octet_length(whole) > 7500 then
          whole := json_build_object('id', new.id)::text;
        end if;
        perform pg_notify('idv_events', whole);
        return null;
      end $$;`);
    this.addSql(`create trigger outbox_event_announce after insert on outbox_event for each row
      when (new.type = 'session.status_changed') execute function outbox_event_announce();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists outbox_event_announce on outbox_event;`);
    this.addSql(`drop function if exists outbox_event_announce();`);
  }
}
