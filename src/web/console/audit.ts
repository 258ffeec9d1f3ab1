/**
 * The audit log page (admins): who did what, when and from where, in the sign-in's environment,
 * filtered by actor, action and dates, a page at a time; the same filter exports the log as CSV.
 * The filter and the page live in the fragment (`#/audit?action=…&after=…`), so a reload or a
 * link shows the same lines.
 */
import { download, graphql } from './api.js';
import { announce, h, show, when } from './dom.js';
import { field, problemText, table } from './forms.js';
import { header } from './layout.js';
import { me } from './state.js';

/** One line as the page lists it. */
interface AuditLine {
  id: string;
  at: number;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  environment: string | null;
  clientAddress: string | null;
  details: string;
}

/** Lines per page. */
const PAGE_SIZE = 25;
/** The actions the filter offers; the log may hold others (any is accepted by the server). */
const ACTIONS = [
  'session.approved',
  'session.declined',
  'session.retake_requested',
  'session.claimed',
  'session.released',
  'session.assigned',
  'session.note_added',
  'evidence.viewed',
  'list.created',
  'list.updated',
  'list.deleted',
  'list_entry.added',
  'list_entry.deleted',
  'api_key.created',
  'api_key.revoked',
  'operator.created',
  'operator.invited',
  'operator.role_changed',
  'operator.disabled',
  'operator.enabled',
  'operator.password_reset',
  'export.sessions_csv',
  'export.audit_log_csv',
  'export.case_report',
  'workflow.draft_saved',
  'workflow.published',
];

const AUDIT_LOG = `query ($first: Int, $after: String, $filter: AuditLogFilterInput) {
  auditLog(first: $first, after: $after, filter: $filter) {
    edges { node { id at actorName action targetType targetId environment clientAddress details } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** A day picked in a date input as Unix seconds at its start (UTC). */
function dayStart(value: string | null): number | undefined {
  return value ? Date.parse(`${value}T00:00:00Z`) / 1000 : undefined;
}

/** What a line's details say, in a few words (the reason of a decision, the list of an entry, an export's filter). */
function detailText(line: AuditLine): string {
  const details = JSON.parse(line.details) as Record<string, unknown>;
  if (typeof details.reason === 'string') return details.reason;
  if (typeof details.kind === 'string') return details.kind;
  if (details.filter && typeof details.filter === 'object')
    return Object.entries(details.filter as Record<string, unknown>)
      .map(([key, value]) => `${key}=${String(value)}`)
      .join(' ');
  if (typeof details.role === 'string') return details.role;
  if (typeof details.assignee_name === 'string')
    return `to ${details.assignee_name}${details.on === 'review_entry' ? ' as the case entered review' : details.rule_id ? ' by a rule' : ''}`;
  return '';
}

/** The object a line is about, linked when it is a case. */
function targetCell(line: AuditLine): HTMLElement {
  if (line.targetType === 'session') return h('a', { href: `#/case/${line.targetId}` }, `case ${line.targetId.slice(0, 8)}`);
  return h('span', {}, `${line.targetType.replace(/_/g, ' ')} ${line.targetId.slice(0, 8)}`);
}

/** The audit log page, filtered and paged by the fragment's parameters. */
export async function auditScreen(query = ''): Promise<void> {
  if (me().operator.role !== 'admin') {
    show('forbidden', header(), h('main', {}, h('h1', { tabindex: '-1' }, 'Audit log'), h('p', {}, 'Only an admin reads the audit log.')));
    return;
  }
  const params = new URLSearchParams(query);
  const to = dayStart(params.get('to'));
  const filter = {
    actor: params.get('actor') || undefined,
    action: params.get('action') || undefined,
    from: dayStart(params.get('from')),
    to: to === undefined ? undefined : to + 24 * 3600,
  };
  const error = h('p', { class: 'error', role: 'alert', id: 'audit-error' });
  let lines: AuditLine[] = [];
  let next: string | null = null;
  try {
    const answer = await graphql<{
      auditLog: { edges: { node: AuditLine }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    }>(AUDIT_LOG, { first: PAGE_SIZE, after: params.get('after') || undefined, filter });
    lines = answer.auditLog.edges.map((edge) => edge.node);
    next = answer.auditLog.pageInfo.hasNextPage ? answer.auditLog.pageInfo.endCursor : null;
  } catch (failure) {
    error.textContent = problemText(failure);
  }

  const filterParams = new URLSearchParams([...params].filter(([key]) => key !== 'after'));
  const form = h(
    'form',
    {
      class: 'filters',
      id: 'audit-filter',
      'aria-label': 'Filter the audit log',
      onsubmit: (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const chosen = new URLSearchParams();
        for (const key of ['actor', 'action', 'from', 'to']) {
          const value = String(data.get(key) ?? '').trim();
          if (value) chosen.set(key, value);
        }
        location.hash = `#/audit${chosen.size ? `?${chosen}` : ''}`;
      },
    },
    field('audit-actor', 'Who', h('input', { name: 'actor', value: params.get('actor') ?? undefined, placeholder: 'a name' })),
    field(
      'audit-action',
      'Action',
      h(
        'select',
        { name: 'action' },
        h('option', { value: '' }, 'Any action'),
        ...ACTIONS.map((action) => h('option', { value: action, selected: action === params.get('action') }, action)),
      ),
    ),
    field('audit-from', 'From', h('input', { name: 'from', type: 'date', value: params.get('from') ?? undefined })),
    field('audit-to', 'Until', h('input', { name: 'to', type: 'date', value: params.get('to') ?? undefined })),
    h('button', { type: 'submit' }, 'Filter'),
    h('a', { href: '#/audit', class: 'button-link' }, 'Clear'),
  );
  const exportButton = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'export-audit',
      onclick: async () => {
        try {
          const exportParams = new URLSearchParams();
          if (filter.actor) exportParams.set('actor', filter.actor);
          if (filter.action) exportParams.set('action', filter.action);
          if (filter.from !== undefined) exportParams.set('from', String(filter.from));
          if (filter.to !== undefined) exportParams.set('to', String(filter.to));
          await download(`/exports/audit-log.csv?${exportParams}`);
          announce('The audit log export is downloading.');
        } catch (failure) {
          error.textContent = problemText(failure);
        }
      },
    },
    'Export CSV',
  );
  const rows = lines.map((line) =>
    h(
      'tr',
      { 'data-action': line.action },
      h('td', {}, when(line.at)),
      h('td', {}, line.actorName),
      h('td', {}, h('code', {}, line.action)),
      h('td', {}, targetCell(line)),
      h('td', {}, detailText(line)),
      h('td', {}, line.clientAddress ?? '—'),
    ),
  );
  show(
    'audit',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Audit log'),
      h(
        'p',
        {},
        `Decisions, evidence views, claims, list changes, keys, people and exports in ${me().environment}, newest first. People's changes show in both environments.`,
      ),
      form,
      h('p', {}, exportButton),
      error,
      table(
        'audit-lines',
        `Audit log, ${me().environment}`,
        ['When', 'Who', 'Action', 'On', 'Details', 'From'],
        rows,
        'Nothing matches these filters.',
      ),
      h(
        'nav',
        { 'aria-label': 'Audit log pages', class: 'pager' },
        params.get('after') ? h('a', { href: `#/audit${filterParams.size ? `?${filterParams}` : ''}` }, 'First page') : null,
        ' ',
        next ? h('a', { href: `#/audit?${new URLSearchParams([...filterParams, ['after', next]])}`, id: 'audit-next' }, 'Next page') : null,
      ),
    ),
  );
}
