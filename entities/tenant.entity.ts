import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A client application: the unit of isolation. Its id is the application UUID partners share with. */
export const TenantSchema = defineEntity({
  name: 'Tenant',
  tableName: 'tenant',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** A tenant row. */
export type Tenant = InferEntity<typeof TenantSchema>;
