/** Who works on a case: claim and release it, and (admins) assign it to a colleague, so two reviewers never decide one case. */
import { ApiError, graphql } from './api.js';
import { announce, h } from './dom.js';
import { me } from './state.js';

/** The holder of a case, as the case and queue queries read it. */
export interface Claim {
  operatorId: string;
  operatorName: string;
}

/** The fields the case query reads for the claim. */
export const CLAIM_FIELDS = 'claim { operatorId operatorName }';

const CLAIM = 'mutation ($id: String!) { claimSession(id: $id) { operatorName } }';
const RELEASE = 'mutation ($id: String!) { releaseSession(id: $id) }';
const ASSIGN = 'mutation ($id: String!, $operatorId: String!) { assignSession(id: $id, operatorId: $operatorId) { operatorName } }';
const DECIDERS = 'query { operators(first: 100) { edges { node { id name role disabled } } } }';

/** True when someone else holds the case: the decision form gives way to a note naming them. */
export function heldByOther(claim: Claim | null): boolean {
  return claim !== null && claim.operatorId !== me().operator.id;
}

/** The line the decision section shows instead of its form while someone else holds the case. */
export function heldByOtherNote(claim: Claim): HTMLElement {
  return h('p', { id: 'held-by-other' }, `${claim.operatorName} is working on this case: only they can decide it until it is released.`);
}

/**
 * The claim section of an in-review case: who holds it, and the buttons the operator's role and the
 * holder allow. `refresh` re-renders the case after a change.
 */
export async function claimSection(sessionId: string, claim: Claim | null, refresh: () => Promise<void>): Promise<HTMLElement> {
  const { role, id: myId } = me().operator;
  const heading = h('h2', { id: 'claim-heading' }, 'Who is working on it');
  const error = h('p', { class: 'error', role: 'alert', id: 'claim-error' });
  const run = (query: string, variables: Record<string, unknown>, done: string) => async () => {
    try {
      await graphql(query, { id: sessionId, ...variables });
      announce(done);
      await refresh();
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : 'The server could not be reached.';
    }
  };
  const status = h(
    'p',
    { id: 'claim-status' },
    claim
      ? claim.operatorId === myId
        ? 'You are working on this case.'
        : `Held by ${claim.operatorName}.`
      : 'Nobody is working on this case yet.',
  );
  const buttons: HTMLElement[] = [];
  if (role !== 'viewer' && !claim)
    buttons.push(h('button', { type: 'button', id: 'claim', onclick: run(CLAIM, {}, 'Case claimed.') }, 'Claim'));
  if (claim && (claim.operatorId === myId || role === 'admin'))
    buttons.push(
      h('button', { type: 'button', id: 'release', class: 'secondary', onclick: run(RELEASE, {}, 'Case released.') }, 'Release'),
    );
  const assign = role === 'admin' ? await assignForm(run) : null;
  return h(
    'section',
    { 'aria-labelledby': 'claim-heading' },
    heading,
    status,
    buttons.length ? h('div', { class: 'actions' }, ...buttons) : null,
    assign,
    error,
  );
}

/** An admin's form to hand the case to a reviewer or admin of the organisation. */
async function assignForm(
  run: (query: string, variables: Record<string, unknown>, done: string) => () => Promise<void>,
): Promise<HTMLElement> {
  const answer = await graphql<{ operators: { edges: { node: { id: string; name: string; role: string; disabled: boolean } }[] } }>(
    DECIDERS,
  );
  const operators = answer.operators.edges.map((edge) => edge.node);
  const select = h(
    'select',
    { id: 'assignee', name: 'assignee' },
    ...operators
      .filter((operator) => operator.role !== 'viewer' && !operator.disabled)
      .map((operator) => h('option', { value: operator.id }, `${operator.name} (${operator.role})`)),
  );
  return h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Assign the case',
      onsubmit: (event) => {
        event.preventDefault();
        void run(ASSIGN, { operatorId: select.value }, 'Case assigned.')();
      },
    },
    h('div', {}, h('label', { for: 'assignee' }, 'Assign to'), select),
    h('button', { type: 'submit', class: 'secondary', id: 'assign' }, 'Assign'),
  );
}
