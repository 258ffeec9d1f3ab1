import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { prefetchFactor } from '../../src/webhooks/emitter-loops.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS, RESPONSE_BODY_CAP_BYTES, WebhookHttpClient } from '../../src/webhooks/http.js';
import { nextRetryDelayMs, parseRetryAfter, RETRY_JITTER_FRACTION } from '../../src/webhooks/schedule.js';
import { signWebhook, signingKeyOf } from '../../src/webhooks/signing.js';
import { addressRefusal, webhookUrlProblem } from '../../src/webhooks/ssrf.js';

const SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/redirect') {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      response.end();
      return;
    }
    // Never answers: the client's time-out ends the attempt.
    if (request.url === '/hang') {
      request.resume();
      return;
    }
    if (request.url === '/big') {
      response.writeHead(200);
      response.end('x'.repeat(1_000_000));
      return;
    }
    response.writeHead(200);
    response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('signing', () => {
  it('given a whsec_ secret, when a message is signed, then the official standardwebhooks library verifies it', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const body = JSON.stringify({ type: 'session.status_changed', data: { a: 1 } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signWebhook(signingKeyOf(secret), 'msg-1', timestamp, body);
    expect(() => new Webhook(secret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(secret).verify(body + ' ', { ...headers })).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(body, { ...headers })).toThrow();
  });
});

describe('address guard', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
  ])('given %s, when checked, then it is refused (%s)', (address, range) => {
    expect(addressRefusal(address, false)).toContain(range);
  });

  it('given public addresses, when checked, then they pass; loopback passes only in development', () => {
    expect(addressRefusal('93.184.216.34', false)).toBeNull();
    expect(addressRefusal('2606:4700:4700::1111', false)).toBeNull();
    expect(addressRefusal('127.0.0.1', true)).toBeNull();
    expect(addressRefusal('10.0.0.1', true)).not.toBeNull();
  });

  it('given destination URLs, when validated, then only HTTPS (or development loopback HTTP) to non-private hosts pass', () => {
    expect(webhookUrlProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/x', false)).toMatch(/https/);
    expect(webhookUrlProblem('http://127.0.0.1:8080/x', true)).toBeNull();
    expect(webhookUrlProblem('http://[::1]:8080/x', true)).toBeNull();
    expect(webhookUrlProblem('http://10.0.0.1/x', true)).toMatch(/loopback/);
    expect(webhookUrlProblem('https://localhost/x', false)).not.toBeNull();
  });

  it('given a host name resolving to loopback, when sent without the development setting, then the connection is refused', async () => {
    const client = new WebhookHttpClient(false);
    const result = await client.post(base.replace('127.0.0.1', 'localhost'), {}, '{}');
    expect(result).toMatchObject({ statusCode: null, refused: true });
    expect(result.error).toMatch(/refused/);
    const literal = await client.post(base, {}, '{}');
    expect(literal).toMatchObject({ statusCode: null, refused: true });
    await client.close();
  });

  it('given a redirect, when sent, then it is not followed (a 3xx is a failed attempt)', async () => {
    const client = new WebhookHttpClient(true);
    const result = await client.post(`${base}/redirect`, {}, '{}');
    expect(result.statusCode).toBe(302);
    await client.close();
  });

  it('given a huge response, when sent, then only the capped prefix is kept', async () => {
    const client = new WebhookHttpClient(true);
    const result = await client.post(`${base}/big`, {}, '{}');
    expect(result.statusCode).toBe(200);
    expect(result.responseBody!.length).toBe(RESPONSE_BODY_CAP_BYTES);
    await client.close();
  });
});

describe('attempt time-out (WEBHOOK_TIMEOUT_SECONDS)', () => {
  it('given a receiver that never answers, when sent with a 300 ms time-out, then the attempt fails with no status once it is spent', async () => {
    const client = new WebhookHttpClient(true, 300);
    const result = await client.post(`${base}/hang`, {}, '{}');
    expect(result).toMatchObject({ statusCode: null, refused: false });
    expect(result.error).toBeTruthy();
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(DEFAULT_WEBHOOK_TIMEOUT_MS);
    await client.close();
  });

  it('given a lease and a time-out, when the rounds claimed ahead are counted, then each round ahead needs its wait and send plus a time-out to spare', () => {
    expect(prefetchFactor(60)).toBe(2);
    expect(prefetchFactor(45)).toBe(1);
    expect(prefetchFactor(2)).toBe(0);
    expect(prefetchFactor(60, 30_000)).toBe(0);
    expect(prefetchFactor(1200, 300_000)).toBe(2);
  });
});

describe('retry schedule', () => {
  it('given each step, when the delay is drawn at both jitter extremes, then it stays within ±20% of the schedule', () => {
    SCHEDULE.forEach((seconds, attempts) => {
      expect(nextRetryDelayMs(SCHEDULE, attempts, null, () => 0)).toBe(Math.round(seconds * 1000 * (1 - RETRY_JITTER_FRACTION)));
      expect(nextRetryDelayMs(SCHEDULE, attempts, null, () => 1)).toBe(Math.round(seconds * 1000 * (1 + RETRY_JITTER_FRACTION)));
    });
    expect(nextRetryDelayMs(SCHEDULE, SCHEDULE.length)).toBeNull();
  });

  it('given Retry-After, when the delay is drawn, then it never retries sooner than asked (capped at a day)', () => {
    expect(nextRetryDelayMs(SCHEDULE, 1, 120, () => 0.5)).toBe(120_000);
    expect(nextRetryDelayMs(SCHEDULE, 2, 1, () => 0.5)).toBe(300_000);
    expect(nextRetryDelayMs(SCHEDULE, 1, 10_000_000, () => 0.5)).toBe(86_400_000);
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
