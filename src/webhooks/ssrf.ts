import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain']);

/** Raised when a webhook target resolves to an address we refuse to call. */
export class RefusedAddressError extends Error {
  /** Lets the sender tell a refusal (permanent) from a network failure (retried). */
  readonly code = 'WEBHOOK_ADDRESS_REFUSED';
}

/** Strips the brackets URL parsing leaves around IPv6 literals. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Why an IP address may not receive webhooks, or null when it may. Only globally routable
 * unicast passes: private, loopback, link-local (cloud metadata 169.254.169.254 included),
 * unique-local (fd00:ec2::254 included), CGNAT, multicast, reserved and translation ranges are
 * refused; IPv4-mapped IPv6 is judged as the IPv4 it carries. Loopback passes when
 * `allowLoopback` (development).
 */
export function addressRefusal(address: string, allowLoopback: boolean): string | null {
  if (!ipaddr.isValid(address)) return `not an IP address: ${address}`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  // ::/96 (IPv4-compatible, deprecated by RFC 4291) reaches IPv4 hosts on some stacks: never a public unicast target.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0))
    return `${address} is an IPv4-compatible (::/96) address`;
  if (range === 'unicast') return null;
  if (range === 'loopback' && allowLoopback) return null;
  return `${address} is a ${range} address`;
}

/** True when a URL host names this machine (`localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname).toLowerCase();
  if (LOOPBACK_NAMES.has(host)) return true;
  return isIP(host) !== 0 && addressRefusal(host, false) !== null && addressRefusal(host, true) === null;
}

/**
 * Checks a destination URL without resolving it: HTTPS only, plain HTTP only to a loopback host
 * when `allowLoopback`; no credentials; an IP-literal host must be public. Returns the problem or
 * null. Names are resolved and checked again at every send ({@link guardedLookup}).
 */
export function webhookUrlProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.username || url.password) return 'url must not carry credentials';
  const host = bareHost(url.hostname);
  const loopback = isLoopbackHost(host);
  if (url.protocol === 'http:') {
    if (!allowLoopback) return 'url must use https';
    if (!loopback) return 'plain http is allowed only to a loopback host in development';
    return null;
  }
  if (url.protocol !== 'https:') return 'url must use https';
  if (loopback) return allowLoopback ? null : 'url must not point at this machine';
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host, allowLoopback);
    if (refusal) return `url must point at a public address (${refusal})`;
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for the HTTP agent: resolves every address of the host and fails
 * when any is refused, then hands the socket exactly the addresses checked, so a second DNS
 * answer cannot swap in a private one (DNS rebinding).
 */
export function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    lookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      for (const entry of addresses) {
        const refusal = addressRefusal(entry.address, allowLoopback);
        if (refusal) return callback(new RefusedAddressError(`${hostname} resolves to a refused address: ${refusal}`), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Checks an IP-literal host before connecting (the socket skips lookup for literals). Returns the refusal or null. */
export function literalHostRefusal(hostname: string, allowLoopback: boolean): string | null {
  const host = bareHost(hostname);
  if (isIP(host) === 0) return null;
  return addressRefusal(host, allowLoopback);
}
