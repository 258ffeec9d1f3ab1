/**
 * Which address a request comes from, decided once for HTTP and WebSockets alike (audit N2, N3):
 * TRUSTED_PROXIES lists the reverse proxies whose `X-Forwarded-For` entries are believed (their
 * addresses or CIDRs, or a hop count), and the client is the first address, counting from the
 * socket, that is not one of them. Per-address limits and the sign-in brake charge that address,
 * so a client can no longer pick its own by prepending a forwarded value.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';

/** Decides whether the address at `hop` (0 = the socket's peer) is a proxy to look past. */
export type TrustProxyFn = (address: string, hop: number) => boolean;

/** proxy-addr's names for address ranges, accepted in TRUSTED_PROXIES as well. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** True when `entry` is a TRUSTED_PROXIES entry: an IPv4/IPv6 address, a CIDR, or a range name. */
export function isTrustedProxyEntry(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  if (entry.includes('/')) {
    try {
      ipaddr.parseCIDR(entry);
      return true;
    } catch {
      return false;
    }
  }
  return ipaddr.isValid(entry);
}

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
