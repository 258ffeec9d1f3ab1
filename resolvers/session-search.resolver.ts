import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';
import { SESSION_SEARCH_DEFAULT, SESSION_SEARCH_MAX, SESSION_SEARCH_QUERY_MAX, searchSessions } from '../src/sessions/search.js';
import { toSessionObject } from './session.resolver.js';
import { SessionSearchHitObject } from './session-search.type.js';

/** The console's one search box over the sessions of the caller's tenant and environment. */
@Resolver()
export class SessionSearchResolver {
  @Query(() => [SessionSearchHitObject], {
    description: `Sessions of the calling tenant and environment matching a name (fuzzy), e-mail, phone, document number, session id (or a prefix of 8+ hex digits) or vendorData (exact or a part of 3+ characters); best match first, then newest. The query is 1–${SESSION_SEARCH_QUERY_MAX} characters.`,
  })
  async searchSessions(
    @Arg('query', () => String) query: string,
    @Arg('first', () => Int, { nullable: true, description: `Most hits, 1–${SESSION_SEARCH_MAX}; default ${SESSION_SEARCH_DEFAULT}.` })
    first: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<SessionSearchHitObject[]> {
    const principal = requireTenant(context);
    const hits = await searchSessions(context.em, context.services.secrets, principal, query, first ?? undefined);
    return hits.map((hit) => ({ session: toSessionObject(hit.session, context), matchedOn: hit.matchedOn }));
  }
}
