import { Migration } from '@mikro-orm/migrations';

/**
 * Sandbox service tokens get an audience of their own (audit N9): `openkyc:service-token:sandbox:<tenant>`,
 * while live tokens keep `openkyc:service-token:<tenant>`, so an offline check of signature, issuer
 * and the live audience refuses a sandbox token, as Stripe keeps test objects out of live mode.
 *
 * The sandbox key in use signed tokens with the live audience. It is retired from signing and from
 * the JWKS (`published = false`): those tokens no longer verify offline at all, and introspection,
 * which reads every key, still answers for them. The service makes a new sandbox key at start-up.
 */
export class Migration20261127000100H28SandboxAudience extends Migration {
  override name = 'Migration20261127000100H28SandboxAudience';

  override up(): void {
    this.addSql(`alter table signing_key add column published boolean not null default true;`);
    this.addSql(`update signing_key set active = false, published = false where environment = 'sandbox';`);
  }

  override down(): void {
    this.addSql(`delete from signing_key where environment = 'sandbox' and published;`);
    this.addSql(
      `update signing_key set active = true where kid = (select kid from signing_key where environment = 'sandbox' order by created_at desc limit 1);`,
    );
    this.addSql(`alter table signing_key drop column if exists published;`);
  }
}
