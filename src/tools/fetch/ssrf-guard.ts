import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { refusedRange } from './address-policy.ts';
import { FetchAllowlist, normalizeHost } from './fetch-allowlist.ts';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has (injectable, so tests can map names at will). */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The guard refused a destination; `reason` (the address range) is for logs, not for clients. */
export class BlockedAddressError extends Error {
  readonly hostname: string;
  readonly reason: string;
  /** Whether the host was an address literal (else a name that resolved to a refused address). */
  readonly literal: boolean;

  constructor(hostname: string, reason: string, literal: boolean) {
    super(`${hostname}: ${literal ? 'is' : 'resolves to'} a ${reason} address, which is not fetched`);
    this.name = 'BlockedAddressError';
    this.hostname = hostname;
    this.reason = reason;
    this.literal = literal;
  }
}

const systemResolver: HostResolver = async (hostname) => {
  const addresses = await systemLookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** Names that mean this machine whatever DNS says (RFC 6761 reserves all of `.localhost`). */
const localNames = /^(localhost|.+\.localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)$/;

/**
 * The platform's one SSRF guard (docs/security.md): every URL fetched on a caller's behalf passes here. A destination is refused when its address
 * is not public (see address-policy) unless `fetch.allow` covers it. Address literals are checked
 * before connecting (`checkHost`); names are checked inside the socket's own DNS lookup
 * (`lookup`, given to the HTTP client's connector), so the connection goes to exactly the
 * addresses that were checked and a DNS answer that changes between check and connect (DNS
 * rebinding) cannot slip through.
 */
export class SsrfGuard {
  readonly allowlist: FetchAllowlist;
  readonly #resolve: HostResolver;

  constructor(options: { allow?: readonly string[]; resolve?: HostResolver } = {}) {
    this.allowlist = new FetchAllowlist(options.allow ?? []);
    this.#resolve = options.resolve ?? systemResolver;
  }

  /** Checks what needs no DNS: an address literal, or a name that always means this machine. */
  checkHost(hostname: string): void {
    const host = normalizeHost(hostname);
    if (isIP(host) !== 0) {
      if (this.allowlist.allowsAddress(host)) return;
      const refused = refusedRange(host);
      if (refused !== undefined) throw new BlockedAddressError(hostname, refused, true);
      return;
    }
    if (localNames.test(host) && !this.allowlist.allowsHost(host)) {
      throw new BlockedAddressError(hostname, 'loopback', false);
    }
  }

  /** Resolves a name and checks every address it has; one refused address refuses the name. */
  async resolveChecked(hostname: string): Promise<readonly ResolvedAddress[]> {
    this.checkHost(hostname);
    const host = normalizeHost(hostname);
    if (isIP(host) !== 0) return [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
    const addresses = await this.#resolve(host);
    if (this.allowlist.allowsHost(host)) return addresses;
    for (const { address } of addresses) {
      if (this.allowlist.allowsAddress(address)) continue;
      const refused = refusedRange(address);
      if (refused !== undefined) throw new BlockedAddressError(hostname, refused, false);
    }
    return addresses;
  }

  /** A `net.connect` lookup that only ever hands the socket checked addresses. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolveChecked(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
        const first = wanted[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all === true) {
          callback(
            null,
            wanted.map((entry) => ({ address: entry.address, family: entry.family })),
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}
