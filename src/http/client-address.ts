/**
 * Which address a request comes from, decided once for HTTP and WebSockets alike (audit N2, N3):
 * TRUSTED_PROXIES lists the reverse proxies whose `X-Forwarded-For` entries are believed (their
 * addresses or CIDRs, or a hop count), and the client is the first address, counting from the
 * socket, that is not one of them. Per-address limits and the sign-in brake charge that address,
 * so a client can no longer pick its own by prepending a forwarded value.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** Decides whether the address at `hop` (0 = the socket's peer) is a proxy to look past. */
export type TrustProxyFn = (address: string, hop: number) => boolean;

/**
 * The trust function of TRUSTED_PROXIES (a hop count or a list) and the legacy TRUST_PROXY=true,
 * which now means one hop (the proxy in front of us), never "every hop"; `false` when nothing is
 * trusted (the socket's peer is the client).
 */
export function trustProxyFn(trustedProxies: number | string[] | undefined, legacyTrustProxy: boolean): TrustProxyFn | false {
  if (typeof trustedProxies === 'number') return trustedProxies > 0 ? (_address, hop) => hop < trustedProxies : false;
  if (trustedProxies && trustedProxies.length > 0) return proxyAddr.compile(trustedProxies);
  return legacyTrustProxy ? (_address, hop) => hop < 1 : false;
}

/** The client address of a raw HTTP request (a WebSocket upgrade included) under `trust`. */
export function clientAddressOf(request: IncomingMessage, trust: TrustProxyFn | false): string {
  if (!trust) return request.socket.remoteAddress ?? 'unknown';
  return proxyAddr(request, trust);
}
