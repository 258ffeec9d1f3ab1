/** The overview: decisions per day by outcome, the funnel from created to decided, time to decision and the review backlog by age. */
import { graphql } from './api.js';
import { barChart, funnelChart } from './charts.js';
import { h, show } from './dom.js';
import { header } from './layout.js';
import { me } from './state.js';

const OVERVIEW = `query { decisionsPerDay(days: 14) { day approved declined } reviewBacklog { underAnHour underADay underAWeek older }
  sessionFunnel(days: 30) { created started submitted decided }
  timeToDecision(days: 30) { decided underAMinute underTenMinutes underAnHour underADay older p50Seconds p90Seconds }
  decisionsByReason(days: 30) { cause reviewerText category declined inReview } }`;

/** A duration in seconds in the largest unit that keeps it readable. */
function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

/** Charts where people would rather look than read. */
export async function overviewScreen(): Promise<void> {
  const data = await graphql<{
    decisionsPerDay: { day: string; approved: number; declined: number }[];
    reviewBacklog: { underAnHour: number; underADay: number; underAWeek: number; older: number };
    sessionFunnel: { created: number; started: number; submitted: number; decided: number };
    timeToDecision: {
      decided: number;
      underAMinute: number;
      underTenMinutes: number;
      underAnHour: number;
      underADay: number;
      older: number;
      p50Seconds: number | null;
      p90Seconds: number | null;
    };
    decisionsByReason: { cause: string; reviewerText: string; category: string; declined: number; inReview: number }[];
  }>(OVERVIEW);
  const days = data.decisionsPerDay;
  const backlog = data.reviewBacklog;
  const funnel = data.sessionFunnel;
  const times = data.timeToDecision;
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
      h('h2', {}, 'From created to decided'),
      funnelChart('funnel-chart', `Sessions created in the last 30 days by the furthest stage they reached, ${me().environment}`, [
        { name: 'created', value: funnel.created },
        { name: 'started', value: funnel.started },
        { name: 'submitted', value: funnel.submitted },
        { name: 'decided', value: funnel.decided },
      ]),
      h('h2', {}, 'Time to decision'),
      h(
        'p',
        { id: 'time-to-decision' },
        times.decided === 0
          ? 'Nothing decided in the last 30 days.'
          : `${times.decided} decided in the last 30 days: half within ${duration(times.p50Seconds)}, nine in ten within ${duration(times.p90Seconds)}.`,
      ),
      barChart(
        'time-chart',
        'Sessions decided in the last 30 days, by time from creation to decision',
        ['under 1 min', '1–10 min', '10–60 min', '1–24 h', '1 day +'],
        [
          {
            name: 'sessions',
            className: 'series-time',
            values: [times.underAMinute, times.underTenMinutes, times.underAnHour, times.underADay, times.older],
          },
        ],
        true,
      ),
      h('h2', {}, 'Declines and reviews by reason'),
      reasonsTable(data.decisionsByReason),
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

/** Sessions declined or in review in the last 30 days by the reason that decided them, most frequent first. */
function reasonsTable(rows: { cause: string; reviewerText: string; category: string; declined: number; inReview: number }[]): HTMLElement {
  if (rows.length === 0) return h('p', { id: 'reasons-table' }, 'No session was declined or sent to review in the last 30 days.');
  return h(
    'table',
    // Reachable by keyboard when it scrolls inside itself on a phone (axe scrollable-region-focusable).
    { id: 'reasons-table', tabindex: '0' },
    h('caption', {}, 'Sessions declined or in review in the last 30 days, by the reason that decided them'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Reason'),
        h('th', { scope: 'col' }, 'Category'),
        h('th', { scope: 'col' }, 'Declined'),
        h('th', { scope: 'col' }, 'In review'),
      ),
    ),
    h(
      'tbody',
      {},
      ...rows.map((row) =>
        h(
          'tr',
          { 'data-cause': row.cause },
          h('th', { scope: 'row' }, row.reviewerText, ' ', h('code', {}, row.cause)),
          h('td', {}, row.category),
          h('td', {}, String(row.declined)),
          h('td', {}, String(row.inReview)),
        ),
      ),
    ),
  );
}
