/**
 * The workload tools (issue 25): the queue's age and SLA column, row selection and bulk bar,
 * "Next case", and the admins' Workload page (SLA per workflow, assignment rules).
 */
import { graphql } from './api.js';
import { announce, h, show, when } from './dom.js';
import { field, may, problemText, table } from './forms.js';
import { header } from './layout.js';
import { me } from './state.js';

/** What the queue reads of a case's SLA. */
export const SLA_FIELDS = 'reviewSla { ageSeconds minutes dueAt breached }';

/** A case's SLA as the queue reads it. */
export interface QueueSla {
  reviewSla?: { ageSeconds: number; minutes: number | null; dueAt: number | null; breached: boolean } | null;
}

/** An age in the largest two units a reviewer reads at a glance: "3 d 4 h", "2 h 5 min", "12 min". */
export function ageText(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/**
 * The queue's age cell: the time in review, and against the SLA the time left or, past it, a
 * marker in words (not colour alone) with how long ago it ran out.
 */
export function slaCell(item: QueueSla): HTMLElement {
  const sla = item.reviewSla;
  if (!sla) return h('td', {}, '—');
  const now = Math.floor(Date.now() / 1000);
  const due = sla.dueAt;
  return h(
    'td',
    { class: sla.breached ? 'sla breached' : 'sla' },
    ageText(sla.ageSeconds),
    sla.minutes === null
      ? ''
      : sla.breached
        ? h('strong', { class: 'sla-marker' }, ` · SLA breached${due === null ? '' : ` ${ageText(now - due)} ago`}`)
        : due !== null && due > now
          ? ` · ${ageText(due - now)} left of ${ageText(sla.minutes * 60)}`
          : ` · SLA ${ageText(sla.minutes * 60)}`,
  );
}

/** The selection box of a queue row (reviewers and admins). */
export function selectCell(id: string, label: string): HTMLElement {
  return h(
    'td',
    {},
    may('reviewer', 'admin') ? h('input', { type: 'checkbox', class: 'pick', value: id, 'aria-label': `Select ${label}` }) : '',
  );
}

const BULK = `mutation ($input: BulkActionInput!) { bulkAction(input: $input) { sessionId ok code message } }`;
const NEXT = 'mutation { nextCase }';
const OPERATORS = 'query { operators(first: 100) { edges { node { id name role disabled } } } }';

/** "Next case": the reviewer's held or the longest-waiting unclaimed case, claimed, opened. */
export function nextCaseButton(): HTMLElement | null {
  if (!may('reviewer', 'admin')) return null;
  const problem = h('span', { class: 'error', role: 'alert', id: 'next-case-error' });
  return h(
    'p',
    {},
    h(
      'button',
      {
        type: 'button',
        id: 'next-case',
        onclick: async () => {
          problem.textContent = '';
          try {
            const { nextCase } = await graphql<{ nextCase: string | null }>(NEXT);
            if (nextCase) location.hash = `#/case/${nextCase}`;
            else problem.textContent = 'Nothing waits for you.';
          } catch (failure) {
            problem.textContent = problemText(failure);
          }
        },
      },
      'Next case',
    ),
    ' ',
    problem,
  );
}

/** The bulk bar: one action and one reason for the selected cases; `done` re-reads the queue. */
export async function bulkBar(done: () => Promise<void>): Promise<HTMLElement | null> {
  if (!may('reviewer', 'admin')) return null;
  const assignees =
    me().operator.role === 'admin'
      ? (
          await graphql<{ operators: { edges: { node: { id: string; name: string; role: string; disabled: boolean } }[] } }>(OPERATORS)
        ).operators.edges
          .map((edge) => edge.node)
          .filter((operator) => !operator.disabled && operator.role !== 'viewer')
      : [];
  const outcome = h('p', { role: 'status', id: 'bulk-outcome' });
  const form = h(
    'form',
    {
      class: 'filters',
      id: 'bulk',
      'aria-label': 'Act on the selected cases',
      onsubmit: async (event) => {
        event.preventDefault();
        const ids = [...document.querySelectorAll<HTMLInputElement>('input.pick:checked')].map((box) => box.value);
        if (ids.length === 0) {
          outcome.textContent = 'Select cases first.';
          return;
        }
        const data = new FormData(form);
        const action = String(data.get('action'));
        try {
          const { bulkAction } = await graphql<{ bulkAction: { ok: boolean; message: string | null }[] }>(BULK, {
            input: {
              sessionIds: ids,
              action,
              reason: String(data.get('reason') ?? '').trim() || null,
              operatorId: action === 'assign' ? String(data.get('operator') ?? '') : null,
              nodeType: action === 'retake' ? String(data.get('node') ?? '') : null,
            },
          });
          const failed = bulkAction.filter((result) => !result.ok);
          await done();
          const text = `${bulkAction.length - failed.length} of ${bulkAction.length} cases done.${failed.length ? ` Not done: ${[...new Set(failed.map((result) => result.message))].join(' ')}` : ''}`;
          document.getElementById('bulk-outcome')!.textContent = text;
          announce(text);
        } catch (failure) {
          outcome.textContent = problemText(failure);
        }
      },
    },
    field(
      'bulk-action',
      'With the selected',
      h(
        'select',
        { name: 'action' },
        ...[
          ['claim', 'Claim'],
          ...(assignees.length ? [['assign', 'Assign to']] : []),
          ['approve', 'Approve'],
          ['decline', 'Decline'],
          ['retake', 'Ask for a retake'],
        ].map(([value, label]) => h('option', { value: value! }, label!)),
      ),
    ),
    assignees.length
      ? field(
          'bulk-operator',
          'Assignee',
          h('select', { name: 'operator' }, ...assignees.map((operator) => h('option', { value: operator.id }, operator.name))),
        )
      : null,
    field(
      'bulk-node',
      'Step (retake)',
      h(
        'select',
        { name: 'node' },
        ...['document_verification', 'biometric_kyc', 'aml_screening', 'proof_of_address', 'phone_verification'].map((node) =>
          h('option', { value: node }, node.replace(/_/g, ' ')),
        ),
      ),
    ),
    field('bulk-reason', 'One reason for all', h('input', { name: 'reason', autocomplete: 'off' })),
    h('button', { type: 'submit' }, 'Apply'),
  );
  return h(
    'section',
    { 'aria-labelledby': 'bulk-heading', class: 'bulk' },
    h('h2', { id: 'bulk-heading' }, 'Selected cases'),
    form,
    outcome,
  );
}

interface RuleRow {
  id: string;
  workflowId: string | null;
  country: string | null;
  operatorIds: string[];
}

const WORKLOAD = `query {
  workflowSlas { workflowId minutes }
  assignmentRules { id workflowId country operatorIds }
  workflows { id name }
  operators(first: 100) { edges { node { id name role disabled } } }
}`;
const SET_SLA =
  'mutation ($workflowId: String!, $minutes: Int) { setWorkflowSla(workflowId: $workflowId, minutes: $minutes) { workflowId } }';
const CREATE_RULE = 'mutation ($input: AssignmentRuleInput!) { createAssignmentRule(input: $input) { id } }';
const DELETE_RULE = 'mutation ($id: String!) { deleteAssignmentRule(id: $id) }';
const APPLY = 'mutation { applyAssignmentRules }';

/** The admins' Workload page: an SLA per workflow and the assignment rules. */
export async function workloadScreen(): Promise<void> {
  if (me().operator.role !== 'admin') {
    show(
      'forbidden',
      header(),
      h('main', {}, h('h1', { tabindex: '-1' }, 'Workload'), h('p', {}, 'Only an admin sets SLAs and assignment rules.')),
    );
    return;
  }
  const data = await graphql<{
    workflowSlas: { workflowId: string; minutes: number }[];
    assignmentRules: RuleRow[];
    workflows: { id: string; name: string }[];
    operators: { edges: { node: { id: string; name: string; role: string; disabled: boolean } }[] };
  }>(WORKLOAD);
  const names = new Map(data.workflows.map((workflow) => [workflow.id, workflow.name]));
  const people = data.operators.edges.map((edge) => edge.node).filter((operator) => !operator.disabled && operator.role !== 'viewer');
  const personName = new Map(people.map((person) => [person.id, person.name]));
  const error = h('p', { class: 'error', role: 'alert', id: 'workload-error' });
  const act = (run: () => Promise<unknown>, said: string) => async () => {
    try {
      await run();
      await workloadScreen();
      announce(said);
    } catch (failure) {
      error.textContent = problemText(failure);
    }
  };
  const workflowSelect = (name: string, blank?: string) =>
    h(
      'select',
      { name },
      ...(blank ? [h('option', { value: '' }, blank)] : []),
      ...data.workflows.map((workflow) => h('option', { value: workflow.id }, workflow.name)),
    );
  const slaForm = h(
    'form',
    {
      class: 'filters',
      id: 'sla-form',
      'aria-label': 'Set a review SLA',
      onsubmit: (event) => {
        event.preventDefault();
        const form = new FormData(slaForm);
        const hours = Number(form.get('hours'));
        void act(() => graphql(SET_SLA, { workflowId: String(form.get('workflow')), minutes: Math.round(hours * 60) }), 'SLA saved.')();
      },
    },
    field('sla-workflow', 'Workflow', workflowSelect('workflow')),
    field('sla-hours', 'Decide within (hours)', h('input', { name: 'hours', type: 'number', min: '0.1', step: '0.1', required: true })),
    h('button', { type: 'submit' }, 'Save SLA'),
  );
  const ruleForm = h(
    'form',
    {
      id: 'rule-form',
      'aria-label': 'Add an assignment rule',
      onsubmit: (event) => {
        event.preventDefault();
        const form = new FormData(ruleForm);
        const input = {
          workflowId: String(form.get('workflow') ?? '') || null,
          country: String(form.get('country') ?? '').trim() || null,
          operatorIds: form.getAll('operator').map(String),
        };
        void act(() => graphql(CREATE_RULE, { input }), 'Rule added.')();
      },
    },
    h(
      'div',
      { class: 'filters' },
      field('rule-workflow', 'Workflow', workflowSelect('workflow', 'Any workflow')),
      field('rule-country', 'Country (ISO, e.g. GB)', h('input', { name: 'country', maxlength: '2', autocomplete: 'off' })),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Round robin among'),
      ...people.map((person) =>
        h(
          'label',
          { class: 'check' },
          h('input', { type: 'checkbox', name: 'operator', value: person.id }),
          ` ${person.name} (${person.role})`,
        ),
      ),
    ),
    h('p', {}, h('button', { type: 'submit' }, 'Add rule')),
  );
  show(
    'workload',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Workload'),
      error,
      h('h2', {}, 'Review SLA per workflow'),
      h(
        'p',
        {},
        `In ${me().environment}. The SLA counts from the moment a case enters review; the queue shows the time left, and "SLA breached" once a case still in review is past it.`,
      ),
      slaForm,
      table(
        'slas',
        'Review SLAs',
        ['Workflow', 'Decide within', ''],
        data.workflowSlas.map((sla) =>
          h(
            'tr',
            {},
            h('td', {}, names.get(sla.workflowId) ?? sla.workflowId),
            h('td', {}, `${(sla.minutes / 60).toFixed(1)} h`),
            h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  onclick: act(() => graphql(SET_SLA, { workflowId: sla.workflowId, minutes: null }), 'SLA removed.'),
                },
                'Remove',
              ),
            ),
          ),
        ),
        'No workflow has an SLA.',
      ),
      h('h2', {}, 'Assignment rules'),
      h(
        'p',
        {},
        'Cases of a rule’s workflow and/or country go to its people in turn as they enter review. Cases that were waiting before a rule existed are handed out when someone asks for the next case or with the button below. A rule naming both wins over one naming the workflow, which wins over one naming the country.',
      ),
      ruleForm,
      h(
        'p',
        {},
        h(
          'button',
          { type: 'button', class: 'secondary', id: 'apply-rules', onclick: act(() => graphql(APPLY), 'Rules applied.') },
          'Hand out unclaimed cases now',
        ),
      ),
      table(
        'rules',
        'Assignment rules',
        ['Workflow', 'Country', 'In turn', ''],
        data.assignmentRules.map((rule) =>
          h(
            'tr',
            {},
            h('td', {}, rule.workflowId ? (names.get(rule.workflowId) ?? rule.workflowId) : 'any'),
            h('td', {}, rule.country ?? 'any'),
            h('td', {}, rule.operatorIds.map((id) => personName.get(id) ?? 'a former operator').join(', ')),
            h(
              'td',
              {},
              h(
                'button',
                { type: 'button', class: 'danger', onclick: act(() => graphql(DELETE_RULE, { id: rule.id }), 'Rule deleted.') },
                'Delete',
              ),
            ),
          ),
        ),
        'No rule: cases wait for whoever claims them.',
      ),
      h('p', {}, `Last read ${when(Math.floor(Date.now() / 1000))}.`),
    ),
  );
}
