/** The overview: decisions per day by outcome and the review backlog by age. */
import { graphql } from './api.js';
import { barChart } from './charts.js';
import { h, show } from './dom.js';
import { header } from './layout.js';
import { me } from './state.js';

const OVERVIEW = `query { decisionsPerDay(days: 14) { day approved declined } reviewBacklog { underAnHour underADay underAWeek older } }`;

/** Charts where people would rather look than read: decisions per day by outcome, and the review backlog by age. */
export async function overviewScreen(): Promise<void> {
  const data = await graphql<{
    decisionsPerDay: { day: string; approved: number; declined: number }[];
    reviewBacklog: { underAnHour: number; underADay: number; underAWeek: number; older: number };
  }>(OVERVIEW);
  const days = data.decisionsPerDay;
  const backlog = data.reviewBacklog;
  show(
    'overview',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Overview'),
      h('h2', {}, 'Decisions per day'),
      barChart(
        'decisions-chart',
        `Decisions per day over the last 14 days, ${me().environment} (UTC days)`,
        days.map((day) => day.day.slice(5)),
        [
          { name: 'approved', className: 'series-approved', values: days.map((day) => day.approved) },
          { name: 'declined', className: 'series-declined', values: days.map((day) => day.declined) },
        ],
      ),
      h('h2', {}, 'Review backlog by age'),
      barChart(
        'backlog-chart',
        'Cases waiting for review, by time since their last change',
        ['under 1 h', '1–24 h', '1–7 days', '7 days +'],
        [
          {
            name: 'cases',
            className: 'series-backlog',
            values: [backlog.underAnHour, backlog.underADay, backlog.underAWeek, backlog.older],
          },
        ],
        true,
      ),
    ),
  );
}
