/** The hosted flow's shared state: the session, its token, the language, the camera and the live connection. */
import type { Client } from 'graphql-ws';
import type { HostedFlow, Step } from './api.js';
import { translator, type Language, type MessageKey } from '../shared/i18n.js';
import { keep, readKept } from './storage.js';

/** Session statuses after which nothing is left to do here. */
export const FINAL_STATUSES = ['approved', 'declined', 'in_review', 'expired'];

/** A translator for the chosen language. */
type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** The session this page is for, from the last segment of its path. */
export const sessionId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');

/** Mutable state shared by the screens (set by start() in main.ts, then by refresh()). */
export const state: {
  /** The session token of the link. */
  token: string;
  /** The session as the server last described it (read before start() sets it only where checked). */
  flow: HostedFlow;
  /** The language the flow is shown in. */
  language: Language;
  /** The translator for that language. */
  t: Translate;
  /** The camera's stream while a capture screen runs. */
  stream: MediaStream | null;
  /** The live connection that follows the session while another device completes it. */
  following: Client | null;
  /** Shows the screen the session's state asks for (set by main.ts, so steps need not import it). */
  route: () => void;
} = {
  token: '',
  flow: undefined as unknown as HostedFlow,
  language: 'en',
  t: translator('en'),
  stream: null,
  following: null,
  route: () => undefined,
};

/** Translates with the current language (screens call it while rendering). */
export function t(key: MessageKey, params?: Record<string, string | number>): string {
  return state.t(key, params);
}

/** Stops the camera, if it runs. */
export function stopCamera(): void {
  state.stream?.getTracks().forEach((track) => track.stop());
  state.stream = null;
}

/**
 * The steps this person is asked, in the workflow's order: the required ones, the ones already
 * done, and optional ones placed before a required step still to do. An optional step after the
 * last required one is never asked (the session is decided first), so progress does not count it.
 */
export function askedSteps(): Step[] {
  const steps = state.flow.steps;
  const lastRequiredPending = steps.reduce(
    (last, step, index) => (step.required && (step.status === 'pending' || step.status === 'resubmission_requested') ? index : last),
    -1,
  );
  return steps.filter((step, index) => step.required || step.status !== 'pending' || index < lastRequiredPending);
}

/** The document type and country this person chose, kept for retakes (per session, in this tab). */
export function documentChoice(): { idType: string; country: string } | null {
  const stored = readKept(`idv:document:${sessionId}`);
  return stored ? (JSON.parse(stored) as { idType: string; country: string }) : null;
}

/** Remembers the document type and country for retakes. */
export function rememberDocumentChoice(choice: { idType: string; country: string }): void {
  keep(`idv:document:${sessionId}`, JSON.stringify(choice));
}

/** The steps left to do, in the workflow's order. */
export function pendingSteps(): Step[] {
  return state.flow.steps.filter((step) => step.status === 'pending' || step.status === 'resubmission_requested');
}
