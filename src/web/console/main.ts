/**
 * The operator console: sign-in, the live review queue, the case page and the overview, in plain
 * DOM on the public GraphQL API. Screens are addressed by the fragment (`#/`, `#/case/<id>`), so the
 * server serves one page and a reload stays where it was. Each screen lives in a module of its own;
 * this one routes.
 */
import { accountScreen } from './account.js';
import { auditScreen } from './audit.js';
import { invitationScreen } from './invitations.js';
import { workloadScreen } from './workload.js';
import { currentSignIn } from './api.js';
import { caseScreen } from './case.js';
import { signInScreen } from './layout.js';
import { listScreen, listsScreen } from './lists.js';
import { overviewScreen } from './overview.js';
import { keysScreen } from './keys.js';
import { operatorsScreen } from './operators.js';
import { follow, queueScreen } from './queue.js';
import { personScreen, searchScreen } from './search.js';
import { state } from './state.js';
import { destinationScreen, webhooksScreen } from './webhooks.js';
import { composeScreen, workflowScreen, workflowsScreen } from './workflows.js';
import { workflowRulesScreen } from './workflow-rules.js';

/** Fragments and their screens, tried in order; the queue is the fallback. */
const ROUTES: [RegExp, (...params: string[]) => Promise<void>][] = [
  [/^#\/case\/([\w-]+)$/, (id) => caseScreen(id!)],
  [/^#\/overview$/, () => overviewScreen()],
  [/^#\/lists$/, () => listsScreen()],
  [/^#\/lists\/([\w-]+)(?:\/(\d+))?$/, (id, page) => listScreen(id!, page)],
  [/^#\/workflows$/, () => workflowsScreen()],
  [/^#\/workflows\/new$/, () => composeScreen()],
  [/^#\/workflows\/([\w-]+)\/edit$/, (id) => composeScreen(id!)],
  [/^#\/workflows\/([\w-]+)\/rules$/, (id) => workflowRulesScreen(id!)],
  [/^#\/workflows\/([\w-]+)$/, (id) => workflowScreen(id!)],
  [/^#\/webhooks$/, () => webhooksScreen()],
  [/^#\/webhooks\/([\w-]+)$/, (id) => destinationScreen(id!)],
  [/^#\/operators$/, () => operatorsScreen()],
  [/^#\/keys$/, () => keysScreen()],
  [/^#\/account$/, () => accountScreen()],
  [/^#\/audit(?:\?(.*))?$/, (query) => auditScreen(query)],
  [/^#\/workload$/, () => workloadScreen()],
  [/^#\/search\/(.+)$/, (query) => searchScreen(decodeURIComponent(query!))],
  [/^#\/person\/(.+)$/, (vendorData) => personScreen(decodeURIComponent(vendorData!))],
];

/** Shows the screen the fragment names, or the sign-in when nobody is signed in. */
async function route(): Promise<void> {
  // An invitation link is opened by someone who has no account yet.
  const invitation = /^#\/invitation\/([\w-]+)$/.exec(location.hash);
  if (invitation) return invitationScreen(invitation[1]!);
  state.me ??= await currentSignIn();
  if (!state.me) return signInScreen();
  // A password an admin chose is replaced before anything else.
  if (state.me.operator.temporary_credential) return accountScreen();
  follow();
  for (const [pattern, screen] of ROUTES) {
    const match = pattern.exec(location.hash);
    if (match) return screen(...match.slice(1));
  }
  return queueScreen();
}

state.route = route;
window.addEventListener('hashchange', () => void route());
void route();
