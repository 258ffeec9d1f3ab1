import DataLoader from 'dataloader';
import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { StoredAmlHit } from '../src/engines/details.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { amlEntityRecords, hitEntityId, type AmlEntityRecord } from '../src/engines/aml/dispositions.js';
import { disposeAmlHit, latestDispositions, type AmlDispositionRecord } from '../src/sessions/aml-dispositions.js';
import { unixSeconds } from '../src/shared/time.js';
import { AmlHitDispositionEnum, AmlHitDispositionObject, SessionAmlHitObject } from './aml-disposition.type.js';
import { SessionObject } from './session.type.js';
import { storedDetailsOf } from '../src/sessions/stored-node-details.js';

/** The loaders of this resolver, one set per request (kept beside the request's context, so loaders.ts stays as it is). */
interface DispositionLoaders {
  dispositionsBySessionId: DataLoader<string, AmlDispositionRecord[]>;
  entityById: DataLoader<string, AmlEntityRecord | null>;
}
const loadersOfRequest = new WeakMap<GraphQLContext, DispositionLoaders>();

/** This request's loaders, made on first use. */
function loadersOf(context: GraphQLContext): DispositionLoaders {
  let loaders = loadersOfRequest.get(context);
  if (!loaders) {
    loaders = {
      dispositionsBySessionId: new DataLoader(async (ids) => {
        const rows = await latestDispositions(context.em, ids);
        return ids.map((id) => rows.filter((row) => row.sessionId === id));
      }),
      entityById: new DataLoader(async (ids) => {
        const records = await amlEntityRecords(context.em, ids);
        return ids.map((id) => records.get(id) ?? null);
      }),
    };
    loadersOfRequest.set(context, loaders);
  }
  return loaders;
}

/** Shapes a disposition for GraphQL; `currentVersion` tells whether a false positive still holds. */
function toDispositionObject(record: AmlDispositionRecord, currentVersion: string | null): AmlHitDispositionObject {
  return {
    id: record.id,
    sessionId: record.sessionId,
    entityId: record.entityId,
    disposition: record.disposition,
    reason: record.reason,
    actor: record.actor,
    actorName: record.actorName,
    createdAt: unixSeconds(record.createdAt),
    entityChanged: record.disposition === 'false_positive' && currentVersion !== null && currentVersion !== record.entityVersion,
  };
}

/** AML hit disposition (issue 25.3): each hit with its listed entity, and a reviewer's true match or false positive. */
@Resolver(() => SessionObject)
export class AmlDispositionResolver {
  @FieldResolver(() => [SessionAmlHitObject], {
    description:
      "The AML screening's hits, best first, with the listed entity (names, dates of birth, nationality, programmes, source) and the reviewer's disposition; then the hits a standing false positive took out.",
  })
  async amlHits(@Root() session: SessionObject, @Ctx() context: GraphQLContext): Promise<SessionAmlHitObject[]> {
    const results = await context.loaders.nodeResultsBySessionId.load(session.id);
    const details = storedDetailsOf(
      results.find((row) => row.nodeType === 'aml_screening'),
      'aml_screening',
    );
    const hits: { hit: StoredAmlHit; suppressed: boolean }[] = [
      ...(details.hits ?? []).map((hit) => ({ hit, suppressed: false })),
      ...(details.suppressed_hits ?? []).map((hit) => ({ hit, suppressed: true })),
    ];
    if (hits.length === 0) return [];
    const loaders = loadersOf(context);
    const [dispositions, entities] = await Promise.all([
      loaders.dispositionsBySessionId.load(session.id),
      loaders.entityById.loadMany(hits.map(({ hit }) => hitEntityId(hit))),
    ]);
    return hits.map(({ hit, suppressed }, index) => {
      const entityId = hitEntityId(hit);
      const entity = entities[index] instanceof Error ? null : (entities[index] as AmlEntityRecord | null);
      const disposition = dispositions.find((row) => row.entityId === entityId);
      return {
        entityId,
        list: hit.list,
        category: hit.category,
        matchedName: hit.matched_name,
        score: hit.score,
        foundBy: hit.found_by ?? 'screening',
        suppressed,
        entity: entity && { ...entity, importedAt: unixSeconds(entity.importedAt) },
        disposition: disposition ? toDispositionObject(disposition, entity?.version ?? null) : null,
      };
    });
  }

  @Mutation(() => AmlHitDispositionObject, {
    description:
      "Marks one AML hit of a session true match or false positive, with a reason; audited with the operator's name (or the key). A false positive is remembered for the person and the entity: re-screens do not raise it again until the entity's record or the person's screened data changes. A sanctions true match forbids approving the session.",
  })
  async disposeAmlHit(
    @Arg('sessionId', () => String) sessionId: string,
    @Arg('entityId', () => String) entityId: string,
    @Arg('disposition', () => AmlHitDispositionEnum) disposition: string,
    @Arg('reason', () => String) reason: string,
    @Ctx() context: GraphQLContext,
  ): Promise<AmlHitDispositionObject> {
    const record = await disposeAmlHit(context.em, context.services, requireTenant(context), { sessionId, entityId, disposition, reason });
    return toDispositionObject(record, record.entityVersion);
  }
}
