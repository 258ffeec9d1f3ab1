import { execFile, execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EXAMPLES } from '../../src/rest/openapi-examples.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, WEBHOOK_TEST_ENV, type Receiver, type ReceivedWebhook } from './support.js';

const run = promisify(execFile);
const DOC = join(process.cwd(), 'docs', 'webhooks.md');
// Inside the project, so the example's `import 'standardwebhooks'` resolves like an integrator's would.
const SCRATCH = join(process.cwd(), 'scratch', `docs-examples-${process.pid}`);
const PYTHON = process.env.PYTHON ?? 'python3';
const GO = process.env.GO ?? 'go';

/** The fenced block that follows `<!-- MARK -->` in the markdown. */
function blockAfter(markdown: string, mark: string): string {
  const match = new RegExp(`<!-- ${mark.replace(/\./g, '\\.')} -->[^\`]*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(markdown);
  if (!match) throw new Error(`docs/webhooks.md has no block marked ${mark}`);
  return match[1];
}

/**
 * Whether a runtime and its Standard Webhooks library are installed here (`probe` exits 0); when
 * not, the check of that language's example is skipped and says why.
 */
function available(language: string, command: string, probe: string[], install: string): boolean {
  try {
    execFileSync(command, probe, { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    console.warn(`docs/webhooks.md ${language} example not checked: \`${command} ${probe.join(' ')}\` failed here (${install})`);
    return false;
  }
}
const pythonPresent = available('Python', PYTHON, ['--version'], 'install Python 3');
const pythonReady = pythonPresent && available('Python', PYTHON, ['-c', 'import standardwebhooks'], 'pip install standardwebhooks');
const goReady = available('Go', GO, ['version'], 'install Go 1.21 or later; the test downloads the library with go mod tidy');

/** The names of an object's fields, and of its nested objects' fields, as dotted paths. */
function fieldPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, field]) => [`${prefix}${key}`, ...fieldPaths(field, `${prefix}${key}.`)]);
}

/** One delivery as a case file the Python and Go drivers read: secret, raw body, headers. */
function caseOf(secret: string, delivery: ReceivedWebhook): string {
  return JSON.stringify({
    secret,
    body: delivery.rawBody,
    headers: {
      'webhook-id': delivery.headers['webhook-id'],
      'webhook-timestamp': delivery.headers['webhook-timestamp'],
      'webhook-signature': delivery.headers['webhook-signature'],
    },
  });
}

describe('docs/webhooks.md examples', () => {
  let testApp: TestApp;
  let receiver: Receiver;
  let markdown: string;
  let verifyWebhook: (secret: string, rawBody: string, headers: Record<string, unknown>) => unknown;
  /** A real v3 callback delivery of a sandbox session, and the secret that signed it. */
  let callback: { secret: string; delivery: ReceivedWebhook; sessionId: string };
  /** A real `webhook.test` delivery in each payload version, and the destination secrets. */
  const tests = new Map<string, { secret: string; delivery: ReceivedWebhook }>();

  beforeAll(async () => {
    markdown = await readFile(DOC, 'utf8');
    await mkdir(SCRATCH, { recursive: true });
    const file = join(SCRATCH, 'verify.mjs');
    await writeFile(file, blockAfter(markdown, 'example:verify-node'));
    ({ verifyWebhook } = await import(pathToFileURL(file).href));
    testApp = await startTestApp(WEBHOOK_TEST_ENV);
    receiver = await startReceiver();

    const tenant = await testApp.tenant();
    const key = tenant.sandboxKey;
    const secret = (await testApp.rest('POST', '/v1/callback-secret/rotate', { key })).body.secret as string;
    const created = await testApp.rest('POST', '/v1/sessions', {
      key,
      body: { workflow_id: 'standard_kyc', vendor_data: 'docs-example', callback: `${receiver.url}/callback` },
    });
    expect(created.status).toBe(201);
    const sessionId = created.body.session_id;
    const isCallback = (delivery: ReceivedWebhook) => delivery.body?.data?.session_id === sessionId;
    const [delivery] = (await receiver.waitFor((all) => all.some(isCallback))).filter(isCallback);
    callback = { secret, delivery, sessionId };

    for (const version of ['v1', 'v2', 'v3']) {
      const destination = await testApp.rest('POST', '/v1/webhook-destinations', {
        key,
        body: { url: `${receiver.url}/${version}`, version },
      });
      expect(destination.status).toBe(201);
      const queued = await testApp.rest('POST', `/v1/webhook-destinations/${destination.body.uuid}/test`, { key });
      expect(queued.status).toBe(202);
      const [received] = (await receiver.waitFor((all) => all.some((one) => one.id === queued.body.id))).filter(
        (one) => one.id === queued.body.id,
      );
      tests.set(version, { secret: destination.body.secret, delivery: received });
    }
  });
  afterAll(async () => {
    await receiver?.close();
    await testApp?.close();
    await rm(SCRATCH, { recursive: true, force: true });
  });

  it('given a real v3 callback delivery of a sandbox session, when the Node example verifies it, then it passes, and a tampered body fails', () => {
    const { secret, delivery, sessionId } = callback;
    const event = verifyWebhook(secret, delivery.rawBody, delivery.headers) as any;
    expect(event).toMatchObject({ type: 'session.status_changed', data: { session_id: sessionId, environment: 'sandbox' } });

    const tampered = delivery.rawBody.replace('docs-example', 'docs-exampl3');
    expect(tampered).not.toBe(delivery.rawBody);
    expect(() => verifyWebhook(secret, tampered, delivery.headers)).toThrow();
    expect(() => verifyWebhook(`whsec_${Buffer.from('another secret').toString('base64')}`, delivery.rawBody, delivery.headers)).toThrow();
  });

  it('given real webhook.test deliveries in v1, v2 and v3, when the Node example verifies each with its destination secret, then each passes', () => {
    for (const [version, { secret, delivery }] of tests) {
      expect(verifyWebhook(secret, delivery.rawBody, delivery.headers), version).toEqual(JSON.parse(delivery.rawBody));
      const other = tests.get(version === 'v1' ? 'v2' : 'v1')!;
      expect(() => verifyWebhook(other.secret, delivery.rawBody, delivery.headers), version).toThrow();
    }
  });

  it('given the payload blocks of the page, when parsed, then there is one per event and version and each is the OpenAPI example of its webhooks entry', () => {
    const marked = [...markdown.matchAll(/<!-- payload:([a-z_.0-9]+) -->/g)].map((match) => match[1]);
    expect(marked.sort()).toEqual(Object.keys(WEBHOOK_EXAMPLES).sort());
    for (const name of marked) expect(JSON.parse(blockAfter(markdown, `payload:${name}`)), name).toEqual(WEBHOOK_EXAMPLES[name]);
  });

  it('given real deliveries, when their fields are compared with the documented payloads, then they have the same fields', () => {
    for (const [version, { delivery }] of tests)
      expect(fieldPaths(delivery.body).sort(), version).toEqual(fieldPaths(WEBHOOK_EXAMPLES[`webhook.test.${version}`]).sort());
    // A status change's data: the documented fields (the decision's own fields vary with the session).
    const documented = WEBHOOK_EXAMPLES['session.status_changed.v3'] as { data: Record<string, unknown> };
    const real = callback.delivery.body;
    expect(Object.keys(real).sort()).toEqual(Object.keys(documented).sort());
    // Creation is a change from nothing: previous_status null, and the decision of a pending session.
    // The approval-only fields (compliance_level, service_token) and a reviewer's reason are absent here.
    const approvalOnly = ['compliance_level', 'service_token', 'reason', 'metadata'];
    expect(Object.keys(real.data).sort()).toEqual(
      Object.keys(documented.data)
        .filter((key) => !approvalOnly.includes(key))
        .sort(),
    );
    expect(real.data).toMatchObject({ previous_status: null, status: 'pending', session_id: callback.sessionId, reasons: [] });
  });

  it.skipIf(!pythonPresent)('given the Python example, when compiled without running it, then it is valid Python', async () => {
    // Runs wherever Python is, even without the library: a typo in the block fails here.
    await writeFile(join(SCRATCH, 'compile_example.py'), blockAfter(markdown, 'example:verify-python'));
    await run(PYTHON, ['-m', 'py_compile', join(SCRATCH, 'compile_example.py')]);
  });

  it.skipIf(!pythonReady)(
    'given a real delivery, when the Python example verifies it, then it passes, and a tampered body fails',
    async () => {
      await writeFile(join(SCRATCH, 'verify_example.py'), blockAfter(markdown, 'example:verify-python'));
      await writeFile(
        join(SCRATCH, 'driver.py'),
        [
          'import json, sys',
          'from verify_example import verify_webhook',
          'case = json.load(open(sys.argv[1]))',
          'try:',
          '    print(json.dumps({"ok": True, "event": verify_webhook(case["secret"], case["body"].encode(), case["headers"])}))',
          'except Exception as error:',
          '    print(json.dumps({"ok": False, "error": type(error).__name__}))',
          '',
        ].join('\n'),
      );
      const verify = async (body: string) => {
        await writeFile(join(SCRATCH, 'case.json'), caseOf(callback.secret, { ...callback.delivery, rawBody: body }));
        return JSON.parse((await run(PYTHON, [join(SCRATCH, 'driver.py'), join(SCRATCH, 'case.json')], { cwd: SCRATCH })).stdout);
      };
      expect(await verify(callback.delivery.rawBody)).toEqual({ ok: true, event: JSON.parse(callback.delivery.rawBody) });
      expect(await verify(callback.delivery.rawBody.replace('docs-example', 'docs-exampl3'))).toMatchObject({ ok: false });
    },
    60_000,
  );

  it.skipIf(!goReady)(
    'given a real delivery, when the Go example verifies it, then it passes, and a tampered body fails',
    async () => {
      const dir = join(SCRATCH, 'go');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'go.mod'), 'module docsexample\n\ngo 1.21\n');
      await writeFile(join(dir, 'verify.go'), `package main\n\n${blockAfter(markdown, 'example:verify-go')}`);
      await writeFile(
        join(dir, 'main.go'),
        `package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

func main() {
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var c struct {
		Secret  string            \`json:"secret"\`
		Body    string            \`json:"body"\`
		Headers map[string]string \`json:"headers"\`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		panic(err)
	}
	headers := http.Header{}
	for name, value := range c.Headers {
		headers.Set(name, value)
	}
	fmt.Println(verifyWebhook(c.Secret, []byte(c.Body), headers) == nil)
}
`,
      );
      await run(GO, ['mod', 'tidy'], { cwd: dir, timeout: 120_000 });
      await run(GO, ['build', '-o', 'verify', '.'], { cwd: dir, timeout: 120_000 });
      const verify = async (body: string) => {
        await writeFile(join(dir, 'case.json'), caseOf(callback.secret, { ...callback.delivery, rawBody: body }));
        return (await run(join(dir, 'verify'), [join(dir, 'case.json')])).stdout.trim();
      };
      expect(await verify(callback.delivery.rawBody)).toBe('true');
      expect(await verify(callback.delivery.rawBody.replace('docs-example', 'docs-exampl3'))).toBe('false');
    },
    300_000,
  );
});
