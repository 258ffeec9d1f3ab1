/**
 * Webhook destinations of the sign-in's environment: list, create, edit and delete them (admins),
 * and each one's delivery log, every HTTP try with its status code, time, duration and error, with
 * replay (reviewers and admins): the emitter sends the same signed body again.
 */
import { graphql } from './api.js';
import { announce, badge, h, show, when } from './dom.js';
import { confirmButton, field, may, problemText, showProblems, table } from './forms.js';
import { header } from './layout.js';
import { me } from './state.js';

/** A destination as the pages show it. */
interface Destination {
  id: string;
  url: string;
  events: string[] | null;
  version: string;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One HTTP try of a delivery. */
interface Attempt {
  id: string;
  attemptedAt: number;
  status: string;
  responseStatusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** One event sent to the destination. */
interface Delivery {
  id: string;
  eventType: string;
  sessionId: string | null;
  status: string;
  createdAt: number;
  replayedBy: string | null;
  replayedAt: number | null;
  attempts: Attempt[];
}

const DESTINATION_FIELDS = 'id url events version active createdAt updatedAt';
const DESTINATIONS = `query { webhookDestinations { ${DESTINATION_FIELDS} } }`;
const DESTINATION = `query ($id: ID!, $cursor: String) { webhookDestination(id: $id) { ${DESTINATION_FIELDS} }
  webhookDeliveries(destinationId: $id, limit: 20, cursor: $cursor) { nextCursor deliveries { id eventType sessionId status createdAt replayedBy replayedAt
    attempts { id attemptedAt status responseStatusCode durationMs error } } } }`;
const CREATE = `mutation ($input: CreateWebhookDestinationInput!) { createWebhookDestination(input: $input) { destination { id } secret } }`;
const UPDATE = `mutation ($id: ID!, $input: UpdateWebhookDestinationInput!) { updateWebhookDestination(id: $id, input: $input) { secret } }`;
const DELETE = `mutation ($id: ID!) { deleteWebhookDestination(id: $id) }`;
const REPLAY = `mutation ($id: ID!) { replayWebhookDelivery(id: $id) { id } }`;
const SEND_TEST = `mutation ($id: ID!) { sendTestWebhook(destinationId: $id) { id } }`;

/** The event kinds a destination can subscribe to (none ticked: all of them). */
const EVENTS = ['session.status_changed', 'session.resubmission_requested', 'agent.revoked'];

/** Server field names of destination inputs to the form's controls. */
const FIELD_IDS = { url: 'destination-url', events: 'destination-events', version: 'destination-version' };

/** The secret shown once after creation or rotation, until the next screen. */
let freshSecret: string | null = null;

/** The URL, events and version controls, filled from `current` when editing. */
function destinationFields(current?: Destination): HTMLElement[] {
  return [
    field('destination-url', 'Endpoint URL (HTTPS)', h('input', { name: 'url', type: 'url', value: current?.url, autocomplete: 'off' })),
    h(
      'fieldset',
      { class: 'field', 'aria-describedby': 'destination-events-error' },
      h('legend', {}, 'Events (none ticked: every event)'),
      ...EVENTS.map((event) =>
        h(
          'div',
          {},
          h('input', {
            type: 'checkbox',
            name: 'events',
            value: event,
            id: `event-${event}`,
            checked: current?.events?.includes(event) ?? false,
          }),
          ' ',
          h('label', { for: `event-${event}` }, event),
        ),
      ),
      h('p', { class: 'error', role: 'alert', id: 'destination-events-error' }),
    ),
    field(
      'destination-version',
      'Payload version',
      h(
        'select',
        { name: 'version' },
        ...['v3', 'v2', 'v1'].map((version) => h('option', { value: version, selected: current?.version === version }, version)),
      ),
    ),
  ];
}

/** The subscribed events of a form: null for all. */
function chosenEvents(form: HTMLFormElement): string[] | null {
  const events = new FormData(form).getAll('events').map(String);
  return events.length ? events : null;
}

/** A line that shows a new signing secret once, with what to do with it. */
function secretNotice(): HTMLElement | null {
  if (!freshSecret) return null;
  const notice = h(
    'p',
    { class: 'card', id: 'new-secret', role: 'status' },
    'Signing secret (shown only now; keep it in your receiver): ',
    h('code', {}, freshSecret),
  );
  freshSecret = null;
  return notice;
}

/** Every destination of the environment, and the form that adds one (admins). */
export async function webhooksScreen(): Promise<void> {
  const { webhookDestinations } = await graphql<{ webhookDestinations: Destination[] }>(DESTINATIONS);
  const general = h('p', { class: 'error', role: 'alert', id: 'destination-error' });
  const form = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'add-destination',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        try {
          const created = (
            await graphql<{ createWebhookDestination: { destination: { id: string }; secret: string } }>(CREATE, {
              input: { url: String(data.get('url') ?? '').trim(), version: String(data.get('version')), events: chosenEvents(form) },
            })
          ).createWebhookDestination;
          freshSecret = created.secret;
          announce('Destination added.');
          location.hash = `#/webhooks/${created.destination.id}`;
        } catch (failure) {
          showProblems(form, failure, FIELD_IDS, general);
        }
      },
    },
    h('h2', { id: 'add-destination' }, 'Add a destination'),
    ...destinationFields(),
    general,
    h('button', { type: 'submit' }, 'Add destination'),
  );
  show(
    'webhooks',
    header(),
    h(
      'main',
      {},
      h('h1', { tabindex: '-1' }, 'Webhook destinations'),
      table(
        'destinations',
        `Endpoints receiving signed events, ${me().environment}`,
        ['Endpoint', 'Events', 'Version', 'State', 'Added'],
        webhookDestinations.map((destination) =>
          h(
            'tr',
            { 'data-destination-id': destination.id },
            h('td', {}, h('a', { href: `#/webhooks/${destination.id}` }, destination.url)),
            h('td', {}, destination.events?.join(', ') ?? 'all'),
            h('td', {}, destination.version),
            h('td', {}, destination.active ? 'active' : 'inactive'),
            h('td', {}, when(destination.createdAt)),
          ),
        ),
        'No destination: events go only to session callbacks.',
      ),
      may('admin') ? form : null,
    ),
  );
}

/** One try as a line: time, status code or error, duration. */
function attemptText(attempt: Attempt): string {
  const outcome = attempt.responseStatusCode !== null ? `HTTP ${attempt.responseStatusCode}` : `no response (${attempt.error ?? 'error'})`;
  return `${when(attempt.attemptedAt)} · ${outcome} · ${attempt.durationMs} ms`;
}

/** The delivery log: one row per delivery, its tries listed, with replay for reviewers and admins. */
function deliveryLog(destination: Destination, deliveries: Delivery[]): HTMLElement {
  const replayable = may('reviewer', 'admin') && destination.active;
  return table(
    'deliveries',
    'Deliveries, newest first',
    ['Event', 'Session', 'Status', 'Tries', ...(replayable ? ['Action'] : [])],
    deliveries.map((delivery) =>
      h(
        'tr',
        { 'data-delivery-id': delivery.id, 'data-tries': String(delivery.attempts.length) },
        h('td', {}, delivery.eventType, h('br'), h('small', {}, when(delivery.createdAt))),
        h('td', {}, delivery.sessionId ? h('a', { href: `#/case/${delivery.sessionId}` }, delivery.sessionId.slice(0, 8)) : '—'),
        h(
          'td',
          {},
          badge(delivery.status),
          delivery.replayedBy && delivery.replayedAt
            ? h('small', { class: 'replayed' }, ` replayed by ${delivery.replayedBy}, ${when(delivery.replayedAt)}`)
            : null,
        ),
        h(
          'td',
          {},
          delivery.attempts.length
            ? h(
                'ol',
                { class: 'attempts' },
                ...delivery.attempts.map((attempt) => h('li', { 'data-status': attempt.status }, attemptText(attempt))),
              )
            : 'not tried yet',
        ),
        replayable
          ? h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  'aria-label': `Replay ${delivery.eventType} of ${when(delivery.createdAt)}`,
                  onclick: async () => {
                    try {
                      await graphql(REPLAY, { id: delivery.id });
                      announce('Replay queued: the same signed body is sent again.');
                      await destinationScreen(destination.id);
                    } catch (failure) {
                      announce(problemText(failure));
                    }
                  },
                },
                'Replay',
              ),
            )
          : null,
      ),
    ),
    'Nothing delivered yet.',
  );
}

/** The edit form and the admin actions on one destination. */
function adminSection(destination: Destination): HTMLElement {
  const general = h('p', { class: 'error', role: 'alert', id: 'destination-error' });
  const form = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'edit-destination',
      onsubmit: async (event) => {
        event.preventDefault();
        const data = new FormData(form);
        try {
          const { secret } = (
            await graphql<{ updateWebhookDestination: { secret: string | null } }>(UPDATE, {
              id: destination.id,
              input: {
                url: String(data.get('url') ?? '').trim(),
                version: String(data.get('version')),
                events: chosenEvents(form),
                active: data.get('active') === 'on',
                rotateSecret: data.get('rotate') === 'on',
              },
            })
          ).updateWebhookDestination;
          freshSecret = secret;
          announce('Destination saved.');
          await destinationScreen(destination.id);
        } catch (failure) {
          showProblems(form, failure, FIELD_IDS, general);
        }
      },
    },
    h('h2', { id: 'edit-destination' }, 'Edit'),
    ...destinationFields(destination),
    h(
      'div',
      {},
      h('input', { type: 'checkbox', name: 'active', id: 'destination-active', checked: destination.active }),
      ' ',
      h('label', { for: 'destination-active' }, 'Active'),
    ),
    h(
      'div',
      {},
      h('input', { type: 'checkbox', name: 'rotate', id: 'destination-rotate' }),
      ' ',
      h('label', { for: 'destination-rotate' }, 'Rotate the signing secret'),
    ),
    general,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Save'),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          id: 'send-test',
          onclick: async () => {
            try {
              await graphql(SEND_TEST, { id: destination.id });
              announce('Test message queued.');
              await destinationScreen(destination.id);
            } catch (failure) {
              general.textContent = problemText(failure);
            }
          },
        },
        'Send a test message',
      ),
      confirmButton('delete-destination', 'Delete', async () => {
        try {
          await graphql(DELETE, { id: destination.id });
          announce('Destination deleted.');
          location.hash = '#/webhooks';
        } catch (failure) {
          general.textContent = problemText(failure);
        }
      }),
    ),
  );
  return form;
}

/** One destination: its settings, its delivery log a page at a time, and (admins) its edit form. */
export async function destinationScreen(id: string, cursor?: string): Promise<void> {
  const data = await graphql<{ webhookDestination: Destination; webhookDeliveries: { nextCursor: string | null; deliveries: Delivery[] } }>(
    DESTINATION,
    { id, cursor: cursor ?? null },
  );
  const destination = data.webhookDestination;
  const next = data.webhookDeliveries.nextCursor;
  show(
    'webhook',
    header(),
    h(
      'main',
      { 'data-destination-id': destination.id },
      h('p', {}, h('a', { href: '#/webhooks' }, '← Webhook destinations')),
      h('h1', { tabindex: '-1' }, destination.url),
      secretNotice(),
      h(
        'p',
        {},
        `${destination.active ? 'Active' : 'Inactive'} · payload ${destination.version} · events: ${destination.events?.join(', ') ?? 'all'} · added ${when(destination.createdAt)}`,
      ),
      h('h2', {}, 'Delivery log'),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'secondary', id: 'refresh-log', onclick: () => destinationScreen(destination.id, cursor) },
          'Refresh',
        ),
        cursor ? h('button', { type: 'button', class: 'secondary', onclick: () => destinationScreen(destination.id) }, 'Newest') : null,
        next
          ? h('button', { type: 'button', class: 'secondary', onclick: () => destinationScreen(destination.id, next) }, 'Older deliveries')
          : null,
      ),
      deliveryLog(destination, data.webhookDeliveries.deliveries),
      may('admin') ? adminSection(destination) : null,
    ),
  );
}
