import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { decisionsByReason, decisionsPerDay, reviewBacklog, sessionFunnel, timeToDecision } from '../src/dashboard/stats.service.js';
import { reasonDefinition } from '../src/domain/reasons.js';
import { requireTenant, type GraphQLContext } from '../src/graphql/resolver-context.js';

/** Sessions declined or in review, by the cause of their decisive reason. */
@ObjectType('ReasonCount', { description: 'Sessions declined or in review in a window, by the cause of their decisive reason.' })
export class ReasonCountObject {
  @Field(() => String, { description: 'The reason catalogue code, or your own.' })
  cause!: string;

  @Field(() => String, { description: "The catalogue's sentence for reviewers." })
  reviewerText!: string;

  @Field(() => String)
  category!: string;

  @Field(() => Int)
  declined!: number;

  @Field(() => Int)
  inReview!: number;
}

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

/** How far the sessions created in a window got. */
@ObjectType('SessionFunnel', {
  description: 'Sessions created in the window by the furthest stage they reached; each stage counts those at it or beyond.',
})
export class SessionFunnelObject {
  @Field(() => Int)
  created!: number;

  @Field(() => Int, { description: 'Reached in_progress (or a later stage).' })
  started!: number;

  @Field(() => Int, { description: 'Reached in_review or a decision.' })
  submitted!: number;

  @Field(() => Int, { description: 'Reached approved or declined.' })
  decided!: number;
}

/** Time from creation to the first decision, by bucket and percentile. */
@ObjectType('TimeToDecision', {
  description: 'Time from creation to the first decision of the sessions decided in the window: buckets and percentiles.',
})
export class TimeToDecisionObject {
  @Field(() => Int, { description: 'Sessions decided in the window.' })
  decided!: number;

  @Field(() => Int)
  underAMinute!: number;

  @Field(() => Int, { description: '1 to 10 minutes.' })
  underTenMinutes!: number;

  @Field(() => Int, { description: '10 to 60 minutes.' })
  underAnHour!: number;

  @Field(() => Int, { description: '1 to 24 hours.' })
  underADay!: number;

  @Field(() => Int, { description: 'A day or more.' })
  older!: number;

  @Field(() => Int, { nullable: true, description: 'Median, seconds; null when nothing was decided.' })
  p50Seconds!: number | null;

  @Field(() => Int, { nullable: true, description: '90th percentile, seconds; null when nothing was decided.' })
  p90Seconds!: number | null;
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

  @Query(() => [ReasonCountObject], {
    description:
      'Sessions declined or in review in the last `days` days (1-90, default 30), by the cause of their decisive reason, most frequent first.',
  })
  async decisionsByReason(
    @Arg('days', () => Int, { nullable: true }) days: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ReasonCountObject[]> {
    const counts = await decisionsByReason(context.em, requireTenant(context), days ?? 30);
    return counts.map((count) => {
      const definition = reasonDefinition(count.cause);
      return { ...count, reviewerText: definition.reviewer, category: definition.category };
    });
  }

  @Query(() => ReviewBacklogObject, { description: 'The in-review sessions by age.' })
  async reviewBacklog(@Ctx() context: GraphQLContext): Promise<ReviewBacklogObject> {
    return reviewBacklog(context.em, requireTenant(context));
  }

  @Query(() => SessionFunnelObject, {
    description: 'How far the sessions created in the last `days` days (1-90, default 30) got: created, started, submitted, decided.',
  })
  async sessionFunnel(
    @Arg('days', () => Int, { nullable: true }) days: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<SessionFunnelObject> {
    return sessionFunnel(context.em, requireTenant(context), days ?? 30);
  }

  @Query(() => TimeToDecisionObject, {
    description: 'Time from creation to first decision of the sessions decided in the last `days` days (1-90, default 30).',
  })
  async timeToDecision(
    @Arg('days', () => Int, { nullable: true }) days: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<TimeToDecisionObject> {
    return timeToDecision(context.em, requireTenant(context), days ?? 30);
  }
}
