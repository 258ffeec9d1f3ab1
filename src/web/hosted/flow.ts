/** Reading and submitting the session: refresh, submit and the live follow while another device completes it. */
import { createClient } from 'graphql-ws';
import { graphql, HOSTED_FLOW, SUBMIT, type HostedFlow } from './api.js';
import { app, h, show, showProblem } from './dom.js';
import { FINAL_STATUSES, sessionId, state, t } from './state.js';

/** Reads the session again and goes to the screen its state asks for. */
export async function refresh(): Promise<void> {
  state.flow = (await graphql<{ hostedFlow: HostedFlow }>(state.token, HOSTED_FLOW, { sessionId })).hostedFlow;
  state.route();
}

/** Runs a submission behind the processing screen, then follows the session's new state. */
export async function submit(step: keyof typeof SUBMIT, input: Record<string, unknown>, back: () => void): Promise<void> {
  show('processing', t('processingHeading'), h('p', {}, t('processingHint')), h('div', { className: 'spinner', 'aria-hidden': 'true' }));
  try {
    await graphql(state.token, SUBMIT[step], { sessionId, input });
    await refresh();
  } catch (error) {
    back();
    showProblem(error);
  }
}

/**
 * Follows the session's status over graphql-ws (the session token and id in connection_init), so this
 * page shows the final screen as soon as the phone has finished, without a reload.
 */
export function follow(): void {
  if (state.following) return;
  state.following = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    // The session id lets the server check the token when the socket opens (an HMAC of that id).
    connectionParams: { 'x-session-token': state.token, 'x-session-id': sessionId },
    retryAttempts: 5,
    on: { connected: () => (app.dataset.following = 'live') },
  });
  state.following.subscribe(
    { query: 'subscription ($sessionId: String!) { hostedFlowChanged(sessionId: $sessionId) { status } }', variables: { sessionId } },
    {
      next: (event) => {
        const status = (event.data as { hostedFlowChanged?: { status: string } } | undefined)?.hostedFlowChanged?.status;
        if (status && FINAL_STATUSES.includes(status)) void refresh();
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
}
