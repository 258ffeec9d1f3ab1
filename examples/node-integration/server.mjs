// A minimal integration of the identity verification service, as an integrator's backend would
// write it: create a session, send the browser to its `url`, take the browser back at
// `redirect_url`, verify webhook signatures, fetch the decision, and verify the service token
// offline against the JWKS. Plain Node (node:http), `jose` and `standardwebhooks`; no framework.
//
//   IDV_URL=http://127.0.0.1:3000 IDV_API_KEY=sk_sandbox_… IDV_APPLICATION_ID=<tenant id> \
//   WEBHOOK_SECRET=whsec_… npm start
//
// Without WEBHOOK_SECRET it registers a webhook destination for itself at start (and prints the
// secret to keep); the service's flow settings must allow this app's origin as a redirect origin.
import { createServer } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Webhook } from 'standardwebhooks';

const IDV_URL = required('IDV_URL').replace(/\/$/, '');
const API_KEY = required('IDV_API_KEY');
const APPLICATION_ID = required('IDV_APPLICATION_ID');
/** `sandbox` or `live`: the environment of API_KEY, which its service tokens must carry. */
const ENVIRONMENT = process.env.IDV_ENVIRONMENT ?? 'sandbox';
const PORT = Number(process.env.PORT ?? 4000);
const HOST = process.env.HOST ?? '127.0.0.1';
const WORKFLOW_ID = process.env.IDV_WORKFLOW_ID ?? 'standard_kyc';

/** Reads a required environment variable or stops with a message naming it. */
function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see the comment at the top of server.mjs).`);
    process.exit(1);
  }
  return value;
}

/** Calls the service's REST API with the API key; throws with the problem's detail on a 4xx/5xx. */
async function api(method, path, body) {
  const response = await fetch(`${IDV_URL}${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = response.status === 204 ? null : await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${json?.code ?? ''} ${json?.detail ?? ''}`);
  return json;
}

const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', IDV_URL));

/** Verifies a service token offline: signature (EdDSA, key from the JWKS), issuer, our audience, environment. */
async function verifyServiceToken(token) {
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: 'openkyc',
    // Live tokens carry openkyc:service-token:<id>, sandbox ones openkyc:service-token:sandbox:<id>.
    audience: ENVIRONMENT === 'live' ? `openkyc:service-token:${APPLICATION_ID}` : `openkyc:service-token:sandbox:${APPLICATION_ID}`,
    algorithms: ['EdDSA'],
  });
  if (payload.env !== ENVIRONMENT) throw new Error(`service token of ${payload.env}, expected ${ENVIRONMENT}`);
  return { payload, kid: protectedHeader.kid };
}

/** Events received at /webhooks, newest last (a real app would store them and dedupe by webhook-id). */
const events = [];
let webhook;

/** Escapes text for HTML. */
function html(text) {
  return String(text).replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Sends an HTML page. */
function page(response, status, body) {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Example integration</title><body>${body}</body></html>`);
}

/** Reads a request body as a string (webhook signatures are over the exact bytes). */
async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url, `http://${request.headers.host}`);
  try {
    if (request.method === 'GET' && url.pathname === '/') {
      return page(response, 200, '<h1>Example shop</h1><form method="post" action="/start"><button>Verify my identity</button></form>');
    }
    if (request.method === 'POST' && url.pathname === '/start') {
      // vendor_data is our own user id: the service returns the active session for the same user.
      const session = await api('POST', '/v1/sessions', {
        workflow_id: WORKFLOW_ID,
        vendor_data: 'example-user-1',
        redirect_url: `${publicUrl()}/return`,
      });
      response.writeHead(303, { location: session.url });
      return response.end();
    }
    if (request.method === 'GET' && url.pathname === '/return') {
      // The browser comes back with session_id and status; never trust them: ask the service.
      const sessionId = url.searchParams.get('session_id') ?? '';
      const decision = await api('GET', `/v1/sessions/${encodeURIComponent(sessionId)}/decision`);
      let token = 'no service token (only approved sessions carry one)';
      if (decision.service_token) {
        const { payload, kid } = await verifyServiceToken(decision.service_token);
        token = `service token verified offline (EdDSA, kid ${kid}, level ${payload.compliance_level})`;
      }
      return page(
        response,
        200,
        `<h1>Verification ${html(decision.status)}</h1><p data-status="${html(decision.status)}">Status: ${html(decision.status)}</p><p data-token>${html(token)}</p>`,
      );
    }
    if (request.method === 'POST' && url.pathname === '/webhooks') {
      const body = await readBody(request);
      let event;
      try {
        event = webhook.verify(body, request.headers);
      } catch (error) {
        console.error(`Webhook refused: ${error.message}`);
        response.writeHead(400);
        return response.end('bad signature');
      }
      events.push({ id: request.headers['webhook-id'], ...event });
      const data = event.data ?? {};
      console.log(`Webhook verified: ${event.type} ${data.session_id ?? '-'} ${data.status ?? '-'}`);
      response.writeHead(204);
      return response.end();
    }
    if (request.method === 'GET' && url.pathname === '/events') {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify(events));
    }
    response.writeHead(404);
    response.end();
  } catch (error) {
    console.error(error);
    page(response, 502, `<h1>Something went wrong</h1><p>${html(error.message)}</p>`);
  }
});

/** This app's own base URL (for redirect_url and the webhook destination). */
function publicUrl() {
  if (process.env.PUBLIC_URL) return process.env.PUBLIC_URL.replace(/\/$/, '');
  const address = server.address();
  return `http://${HOST}:${address.port}`;
}

server.listen(PORT, HOST, async () => {
  let secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    const destination = await api('POST', '/v1/webhook-destinations', { url: `${publicUrl()}/webhooks`, version: 'v3' });
    secret = destination.secret;
    console.log(`Registered webhook destination ${destination.uuid}; its secret (keep it as WEBHOOK_SECRET): ${secret}`);
  }
  webhook = new Webhook(secret);
  console.log(`Example integration listening on ${publicUrl()}`);
});
