import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refusedRange } from '../../../src/tools/fetch/address-policy.ts';
import { FetchAllowlist } from '../../../src/tools/fetch/fetch-allowlist.ts';

/** Every range the guard must refuse, with a word its reason must contain. */
const refused: [address: string, reason: string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'carrier-grade'],
  ['100.127.255.254', 'carrier-grade'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['fec0::1', 'site-local'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::10.0.0.1', 'IPv4-compatible'],
  ['::8.8.8.8', 'IPv4-compatible'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['2002:7f00:1::1', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'special-purpose'],
  ['[::1]', 'loopback'],
  ['not-an-address', 'not an IP'],
];

const allowed = [
  '8.8.8.8',
  '93.184.216.34',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('address policy', () => {
  for (const [address, reason] of refused) {
    it(`refuses ${address} (${reason})`, () => {
      const range = refusedRange(address);
      assert.ok(range !== undefined, `${address} must be refused`);
      assert.ok(range.includes(reason), `${address}: '${range}' should say '${reason}'`);
    });
  }
  for (const address of allowed) {
    it(`lets the public address ${address} through`, () => {
      assert.equal(refusedRange(address), undefined);
    });
  }
});

describe('fetch allowlist', () => {
  const allowlist = new FetchAllowlist(['127.0.0.1', '10.1.0.0/16', 'fd00::/8', 'wiki.corp', '*.intra.example']);

  it('matches single addresses, CIDRs (IPv4 and IPv6) and IPv4-mapped forms', () => {
    assert.equal(allowlist.allowsAddress('127.0.0.1'), true);
    assert.equal(allowlist.allowsAddress('::ffff:127.0.0.1'), true);
    assert.equal(allowlist.allowsAddress('127.0.0.2'), false);
    assert.equal(allowlist.allowsAddress('10.1.200.3'), true);
    assert.equal(allowlist.allowsAddress('10.2.0.1'), false);
    assert.equal(allowlist.allowsAddress('fd00::5'), true);
    assert.equal(allowlist.allowsAddress('::1'), false);
  });

  it('matches host names exactly or by a *. suffix, whatever the case or a trailing dot', () => {
    assert.equal(allowlist.allowsHost('wiki.corp'), true);
    assert.equal(allowlist.allowsHost('WIKI.corp.'), true);
    assert.equal(allowlist.allowsHost('evil-wiki.corp'), false);
    assert.equal(allowlist.allowsHost('a.intra.example'), true);
    assert.equal(allowlist.allowsHost('intra.example'), false);
    assert.equal(allowlist.allowsHost('xintra.example'), false);
  });

  it('refuses a malformed CIDR at start-up, naming the entry by its place, not its value', () => {
    assert.throws(() => new FetchAllowlist(['10.0.0.0/8', '10.0.0.0/99']), /^ConfigError: fetch\.allow\[1\]: is not a valid CIDR$/);
  });
});
