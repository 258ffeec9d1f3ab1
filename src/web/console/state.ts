/** The console's shared state: who is signed in, the live socket, and the router screens call to re-render. */
import type { Client } from 'graphql-ws';
import type { SignIn } from './api.js';

/** Mutable state shared by the screens: the sign-in, the live socket and the re-render hook. */
export const state: {
  /** The signed-in operator and environment, null before sign-in. */
  me: SignIn | null;
  /** The graphql-ws client that follows the review queue, null until signed in. */
  socket: Client | null;
  /** Shows the screen the fragment names (set by main.ts; screens call it after sign-in and sign-out). */
  route: () => Promise<void>;
  /** Clears what belongs to one environment or sign-in (set by the screens that keep such state). */
  resets: (() => void)[];
} = { me: null, socket: null, route: async () => undefined, resets: [] };

/** The signed-in operator; screens behind the sign-in call it. */
export function me(): SignIn {
  if (!state.me) throw new Error('not signed in');
  return state.me;
}

/** Drops the live socket and every screen's kept state (sign-out, environment switch). */
export function resetSession(): void {
  state.socket?.dispose();
  state.socket = null;
  for (const reset of state.resets) reset();
}
