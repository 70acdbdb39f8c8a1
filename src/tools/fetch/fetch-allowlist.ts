import ipaddr from 'ipaddr.js';
import { ConfigError } from '../../core/config/config-error.ts';
import { comparableAddress } from './address-policy.ts';

/**
 * The config's `fetch.allow`: intranet destinations the SSRF guard lets through. An entry is a
 * CIDR (`10.1.0.0/16`, `fd00::/8`), one address (`127.0.0.1`, `::1`), a host name
 * (`wiki.corp`), or a host name with a leading `*.` for its subdomains (`*.corp`). An allowed
 * address is allowed whatever name led to it; an allowed name is allowed whatever it resolves to.
 */
export class FetchAllowlist {
  readonly #ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  readonly #names = new Set<string>();
  readonly #suffixes: string[] = [];

  constructor(entries: readonly string[] = []) {
    for (const [index, entry] of entries.entries()) {
      const value = entry.trim().toLowerCase();
      if (value.includes('/')) {
        if (!ipaddr.isValidCIDR(value)) throw new ConfigError(`fetch.allow[${index}]: is not a valid CIDR`);
        this.#ranges.push(ipaddr.parseCIDR(value));
      } else if (ipaddr.isValid(stripBrackets(value))) {
        const address = ipaddr.parse(stripBrackets(value));
        this.#ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else if (value.startsWith('*.')) {
        this.#suffixes.push(value.slice(1));
      } else {
        this.#names.add(normalizeHost(value));
      }
    }
  }

  /** Whether an entry names this host (exactly or by a `*.` suffix). */
  allowsHost(hostname: string): boolean {
    const host = normalizeHost(hostname);
    return this.#names.has(host) || this.#suffixes.some((suffix) => host.endsWith(suffix));
  }

  /** Whether a CIDR or address entry covers this address (IPv4-mapped IPv6 compared as IPv4). */
  allowsAddress(address: string): boolean {
    const parsed = comparableAddress(address);
    if (parsed === undefined) return false;
    return this.#ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  }
}

/** Host names compare without brackets, case or a trailing dot. */
export function normalizeHost(hostname: string): string {
  return stripBrackets(hostname.toLowerCase()).replace(/\.$/, '');
}

function stripBrackets(value: string): string {
  return value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
}
