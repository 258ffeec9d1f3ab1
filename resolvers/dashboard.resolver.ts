import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { decisionsPerDay, reviewBacklog } from '../src/dashboard/stats.service.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/context.js';

/** Decisions made on one day, by outcome. */
@ObjectType('DecisionDay', { description: 'Decisions made on one UTC day, by outcome (decision engine and reviewers alike).' })
export class DecisionDayObject {
  @Field(() => String, { description: 'YYYY-MM-DD, UTC.' })
  day!: string;

  @Field(() => Int)
  approved!: number;

  @Field(() => Int)
  declined!: number;
}

/** The review backlog by age. */
@ObjectType('ReviewBacklog', { description: 'In-review sessions by how long they have waited since their last change.' })
export class ReviewBacklogObject {
  @Field(() => Int)
  underAnHour!: number;

  @Field(() => Int, { description: '1 to 24 hours.' })
  underADay!: number;

  @Field(() => Int, { description: '1 to 7 days.' })
  underAWeek!: number;

  @Field(() => Int, { description: '7 days or more.' })
  older!: number;
}

/** Aggregates for dashboards, counted in SQL for the caller's tenant and environment. */
@Resolver()
export class DashboardResolver {
  @Query(() => [DecisionDayObject], {
    description: 'Decisions per UTC day over the last `days` days (1-90, default 14), today included; empty days are zeros.',
  })
  async decisionsPerDay(
    @Arg('days', () => Int, { nullable: true }) days: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<DecisionDayObject[]> {
    return decisionsPerDay(context.em, requireTenant(context), days ?? 14);
  }

  @Query(() => ReviewBacklogObject, { description: 'The in-review sessions by age.' })
  async reviewBacklog(@Ctx() context: GraphQLContext): Promise<ReviewBacklogObject> {
    return reviewBacklog(context.em, requireTenant(context));
  }
}
