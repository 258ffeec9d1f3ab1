import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A client application: the unit of isolation. Its id is the application UUID partners share with. */
export const TenantSchema = defineEntity({
  name: 'Tenant',
  tableName: 'tenant',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Emptied: a callback secret from before secrets were sealed, until the service's start moves it to `callback_secret`. */
    callbackSecret: p.text().nullable().hidden(),
    /** Days evidence is kept (0–3650; 0 keeps none). */
    evidenceRetentionDays: p.integer().default(30),
  },
});
/** A tenant row. */
export type Tenant = InferEntity<typeof TenantSchema>;
