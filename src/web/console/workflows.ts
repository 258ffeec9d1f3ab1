/**
 * Workflows: the built-in ones (read-only) and the tenant's custom ones of the sign-in's
 * environment; one workflow's steps and thresholds; composing a new one and editing or deleting
 * a custom one (admins: workflows are settings). A refusal shows next to the field at fault.
 */
import { graphql } from './api.js';
import { announce, h, show, when } from './dom.js';
import { confirmButton, field, may, problemText, showProblems, table } from './forms.js';
import { header } from './layout.js';
import { me } from './state.js';

/** One step of a workflow. */
interface WorkflowNode {
  type: string;
  provider: string;
  required: boolean;
}

/** A workflow as the pages show it. */
interface Workflow {
  id: string;
  name: string;
  type: 'user' | 'business';
  builtIn: boolean;
  complianceLevel: string;
  amlScoreThreshold: number;
  maxAttempts: number;
  nodes: WorkflowNode[];
  updatedAt: number;
}

const FIELDS = 'id name type builtIn complianceLevel amlScoreThreshold maxAttempts nodes { type provider required } updatedAt';
const WORKFLOWS = `query { workflows { ${FIELDS} } }`;
const WORKFLOW = `query ($id: String!) { workflow(id: $id) { ${FIELDS} } }`;
const CREATE = `mutation ($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`;
const UPDATE = `mutation ($id: String!, $input: UpdateWorkflowInput!) { updateWorkflow(id: $id, input: $input) { id } }`;
const DELETE = `mutation ($id: String!) { deleteWorkflow(id: $id) }`;

/**
 * The steps a workflow may have, in the order the end user meets them, with the provider the
 * service runs for each (the node catalogue, docs/api.md "Workflows").
 */
const STEPS: { type: string; label: string; provider: string }[] = [
  { type: 'document_verification', label: 'ID document', provider: 'openkyc:mrz_ocr' },
  { type: 'biometric_kyc', label: 'Selfie against the document', provider: 'openkyc:face_match' },
  { type: 'aml_screening', label: 'AML screening', provider: 'openkyc:aml_screen' },
  { type: 'phone_verification', label: 'Phone (one-time code)', provider: 'openkyc:sms_otp' },
  { type: 'proof_of_address', label: 'Proof of address', provider: 'openkyc:poa_ocr' },
  { type: 'business_registry', label: 'Business registry', provider: 'openkyc:registry_lookup' },
];

/** A step type in words. */
function stepLabel(type: string): string {
  return STEPS.find((step) => step.type === type)?.label ?? type.replace(/_/g, ' ');
}

/** Every workflow the sign-in's environment sees, built-in first. */
export async function workflowsScreen(): Promise<void> {
  const { workflows } = await graphql<{ workflows: Workflow[] }>(WORKFLOWS);
  show(
    'workflows',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Workflows'),
      may('admin') ? h('p', {}, h('a', { href: '#/workflows/new', id: 'compose' }, 'Compose a workflow')) : null,
      table(
        'workflows',
        `Built-in and custom workflows, ${me().environment}`,
        ['Workflow', 'Kind', 'Steps', 'AML decline at', 'Compliance level'],
        workflows.map((workflow) =>
          h(
            'tr',
            { 'data-workflow-id': workflow.id },
            h('td', {}, h('a', { href: `#/workflows/${workflow.id}` }, workflow.name)),
            h('td', {}, workflow.builtIn ? 'built-in' : 'custom'),
            h('td', {}, workflow.nodes.map((node) => stepLabel(node.type)).join(' → ')),
            h('td', {}, String(workflow.amlScoreThreshold)),
            h('td', {}, workflow.complianceLevel),
          ),
        ),
        'No workflow.',
      ),
    ),
  );
}

/** One workflow: its steps in order and its thresholds; edit and delete for admins when it is custom. */
export async function workflowScreen(id: string): Promise<void> {
  const { workflow } = await graphql<{ workflow: Workflow }>(WORKFLOW, { id });
  const error = h('p', { class: 'error', role: 'alert', id: 'workflow-error' });
  const term = (name: string, value: string) => [h('dt', {}, name), h('dd', {}, value)];
  show(
    'workflow',
    header(),
    h(
      'main',
      { 'data-workflow-id': workflow.id },
      h('p', {}, h('a', { href: '#/workflows' }, '← Workflows')),
      h('h1', { tabindex: '-1' }, workflow.name),
      h(
        'dl',
        { class: 'terms', id: 'workflow-settings' },
        ...term('Id', workflow.id),
        ...term('Kind', `${workflow.builtIn ? 'built-in (read-only)' : 'custom'}, verifies a ${workflow.type}`),
        ...term('Compliance level when approved', workflow.complianceLevel),
        ...term('AML score that declines', `${workflow.amlScoreThreshold} or more`),
        ...term('Submissions per step', String(workflow.maxAttempts)),
        ...(workflow.builtIn ? [] : term('Last change', when(workflow.updatedAt))),
      ),
      table(
        'workflow-steps',
        'Steps, in the order the end user meets them',
        ['#', 'Step', 'Provider', 'Required'],
        workflow.nodes.map((node, index) =>
          h(
            'tr',
            { 'data-node': node.type },
            h('td', {}, String(index + 1)),
            h('th', { scope: 'row' }, stepLabel(node.type)),
            h('td', {}, node.provider),
            h('td', {}, node.required ? 'required: a failure declines' : 'optional'),
          ),
        ),
        'No step.',
      ),
      h('p', {}, h('a', { href: `#/workflows/${workflow.id}/rules`, id: 'workflow-rules' }, 'Rules, revisions and replay')),
      !workflow.builtIn && may('admin')
        ? h(
            'div',
            { class: 'actions' },
            h('a', { href: `#/workflows/${workflow.id}/edit`, class: 'button-link', id: 'edit-workflow' }, 'Edit'),
            confirmButton('delete-workflow', 'Delete', async () => {
              try {
                await graphql(DELETE, { id: workflow.id });
                announce('Workflow deleted.');
                location.hash = '#/workflows';
              } catch (failure) {
                error.textContent = problemText(failure);
              }
            }),
          )
        : null,
      error,
    ),
  );
}

/** Composes a new custom workflow, or edits one (`id` given): name, kind, steps and thresholds. */
export async function composeScreen(id?: string): Promise<void> {
  const existing = id ? (await graphql<{ workflow: Workflow }>(WORKFLOW, { id })).workflow : null;
  const general = h('p', { class: 'error', role: 'alert', id: 'compose-error' });
  const chosen = (type: string) => existing?.nodes.find((node) => node.type === type);
  const stepRows = STEPS.map((step) => {
    const node = chosen(step.type);
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, h('label', { for: `step-${step.type}` }, step.label)),
      h(
        'td',
        {},
        h(
          'select',
          { id: `step-${step.type}`, name: `step-${step.type}` },
          h('option', { value: 'off', selected: !node }, 'not in the workflow'),
          h('option', { value: 'optional', selected: node ? !node.required : false }, 'optional'),
          h('option', { value: 'required', selected: node?.required ?? false }, 'required'),
        ),
      ),
    );
  });
  const number = (name: string, value: number | undefined, min: number, max: number) =>
    h('input', { name, type: 'number', min: String(min), max: String(max), value: value === undefined ? undefined : String(value) });
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const text = (name: string) => String(data.get(name) ?? '').trim();
        const optionalNumber = (name: string) => (text(name) === '' ? undefined : Number(text(name)));
        const input = {
          name: text('name'),
          type: text('type'),
          complianceLevel: text('complianceLevel') || undefined,
          amlScoreThreshold: optionalNumber('amlScoreThreshold'),
          maxAttempts: optionalNumber('maxAttempts'),
          nodes: STEPS.filter((step) => text(`step-${step.type}`) !== 'off').map((step) => ({
            type: step.type,
            provider: step.provider,
            required: text(`step-${step.type}`) === 'required',
          })),
        };
        try {
          const saved = existing
            ? (await graphql<{ updateWorkflow: { id: string } }>(UPDATE, { id: existing.id, input })).updateWorkflow
            : (await graphql<{ createWorkflow: { id: string } }>(CREATE, { input })).createWorkflow;
          announce(existing ? 'Workflow saved.' : 'Workflow created.');
          location.hash = `#/workflows/${saved.id}`;
        } catch (failure) {
          showProblems(
            form,
            failure,
            {
              name: 'workflow-name',
              type: 'workflow-type',
              compliance_level: 'workflow-level',
              aml_score_threshold: 'workflow-threshold',
              max_attempts: 'workflow-attempts',
              nodes: 'workflow-steps-field',
            },
            general,
          );
        }
      },
    },
    field('workflow-name', 'Name', h('input', { name: 'name', value: existing?.name })),
    field(
      'workflow-type',
      'Verifies a',
      h(
        'select',
        { name: 'type' },
        h('option', { value: 'user', selected: existing?.type !== 'business' }, 'person (user)'),
        h('option', { value: 'business', selected: existing?.type === 'business' }, 'business'),
      ),
    ),
    h(
      'fieldset',
      { 'aria-describedby': 'workflow-steps-field-error' },
      h('legend', {}, 'Steps (the end user meets them in this order)'),
      h('table', { class: 'steps' }, h('tbody', {}, ...stepRows)),
      h('p', { class: 'error', role: 'alert', id: 'workflow-steps-field-error' }),
    ),
    field(
      'workflow-level',
      'Compliance level when approved (default standard)',
      h('input', { name: 'complianceLevel', value: existing?.complianceLevel }),
    ),
    field(
      'workflow-threshold',
      'AML score that declines, 0–100 (default 80)',
      number('amlScoreThreshold', existing?.amlScoreThreshold, 0, 100),
    ),
    field('workflow-attempts', 'Submissions per step, 1–10 (default 3)', number('maxAttempts', existing?.maxAttempts, 1, 10)),
    general,
    h('button', { type: 'submit' }, existing ? 'Save workflow' : 'Create workflow'),
  );
  // The fieldset's error line must be found by showProblems like the others.
  form.querySelector('fieldset')!.classList.add('field');
  show(
    'compose',
    header(),
    h(
      'main',
      {},
      h(
        'p',
        {},
        h('a', { href: existing ? `#/workflows/${existing.id}` : '#/workflows' }, existing ? `← ${existing.name}` : '← Workflows'),
      ),
      h('h1', { tabindex: '-1' }, existing ? `Edit ${existing.name}` : 'Compose a workflow'),
      form,
    ),
  );
}
