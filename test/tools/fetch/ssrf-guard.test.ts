import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../src/core/errors/api-error.ts';
import { GuardedFetcher } from '../../../src/tools/fetch/guarded-fetcher.ts';
import { SsrfGuard, type HostResolver, type ResolvedAddress } from '../../../src/tools/fetch/ssrf-guard.ts';
import { startFakeWeb, type FakeWeb } from '../../helpers/fake-web.ts';

/** Test DNS: names the tests give meaning to; anything else does not resolve. */
const names: Record<string, ResolvedAddress[]> = {
  'site.test': [{ address: '127.0.0.1', family: 4 }],
  'secret.test': [{ address: '127.0.0.1', family: 4 }],
  'internal.test': [{ address: '10.0.0.7', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'v6-loopback.test': [{ address: '::1', family: 6 }],
  'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'mixed.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
};

function resolverCounting(calls: string[]): HostResolver {
  return async (hostname) => {
    calls.push(hostname);
    const found = names[hostname];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
}

function fetcherWith(allow: string[], calls: string[] = []): GuardedFetcher {
  return new GuardedFetcher({ guard: new SsrfGuard({ allow, resolve: resolverCounting(calls) }), maxBytes: 1_000_000, userAgent: 'test' });
}

async function assertRefused(fetcher: GuardedFetcher, url: string, words: readonly string[] = ['private address']): Promise<void> {
  await assert.rejects(fetcher.fetch(url, { timeoutMs: 2_000 }), (error: unknown) => {
    assert.ok(error instanceof ApiError, `${url}: ${String(error)}`);
    assert.equal(error.code, '1214', `${url}: ${error.message}`);
    assert.equal(error.status, 400);
    for (const word of [url, ...words]) assert.ok(error.message.includes(word), `${url}: '${error.message}' should mention '${word}'`);
    return true;
  });
}

describe('SSRF guard', () => {
  let web: FakeWeb;
  const fetchers: GuardedFetcher[] = [];
  const open = (allow: string[], calls?: string[]): GuardedFetcher => {
    const fetcher = fetcherWith(allow, calls);
    fetchers.push(fetcher);
    return fetcher;
  };
  before(async () => {
    web = await startFakeWeb();
  });
  after(async () => {
    await Promise.all(fetchers.map((fetcher) => fetcher.close()));
    await web.close();
  });

  describe('with no allowlist', () => {
    it('refuses an address literal of every non-public range, before connecting', async () => {
      const fetcher = open([]);
      const hosts = [
        '127.0.0.1',
        '10.0.0.1',
        '172.16.5.4',
        '192.168.0.1',
        '169.254.169.254',
        '100.64.1.1',
        '224.0.0.1',
        '255.255.255.255',
        '0.0.0.0',
        '240.0.0.1',
        '[::1]',
        '[::]',
        '[fe80::1]',
        '[fc00::1]',
        '[fd00:ec2::254]',
        '[ff02::1]',
        '[::ffff:127.0.0.1]',
        '[::ffff:10.0.0.1]',
        '[::ffff:169.254.169.254]',
        '[::127.0.0.1]',
        '[64:ff9b::7f00:1]',
        '[2002:7f00:1::]',
      ];
      for (const host of hosts) await assertRefused(fetcher, `http://${host}:${web.port}/secret`);
      assert.equal(web.hits('/secret'), 0);
    });

    it('refuses decimal, octal, hex and short spellings of loopback (normalised by the URL parser)', async () => {
      const fetcher = open([]);
      for (const host of [
        '2130706433',
        '0177.0.0.1',
        '0x7f.0.0.1',
        '0x7f000001',
        '017700000001',
        '127.1',
        '127.0.1',
        '0',
        '0x0',
        '[0:0:0:0:0:ffff:127.0.0.1]',
        '[::ffff:7f00:1]',
      ]) {
        await assertRefused(fetcher, `http://${host}:${web.port}/secret`);
      }
      assert.equal(web.hits('/secret'), 0);
    });

    it("refuses the 'localhost' names whatever they resolve to", async () => {
      const fetcher = open([]);
      for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'localhost.localdomain']) {
        await assertRefused(fetcher, `http://${host}:${web.port}/secret`, ['resolves to a private address']);
      }
      assert.equal(web.hits('/secret'), 0);
    });

    it('refuses host names that resolve to a private, link-local, IPv6 loopback or IPv4-mapped address', async () => {
      const fetcher = open([]);
      for (const host of ['internal.test', 'metadata.test', 'v6-loopback.test', 'mapped.test', 'site.test']) {
        await assertRefused(fetcher, `http://${host}:${web.port}/secret`, ['resolves to a private address']);
      }
      assert.equal(web.hits('/secret'), 0);
    });

    it('refuses a name when any one of its addresses is private (a rebinding host answering both)', async () => {
      await assertRefused(open([]), `http://mixed.test:${web.port}/secret`, ['resolves to a private address']);
    });

    it('does not leak the resolved address in the message', async () => {
      await assert.rejects(open([]).fetch(`http://internal.test:${web.port}/`, { timeoutMs: 2_000 }), (error: Error) => !error.message.includes('10.0.0.7'));
    });
  });

  describe('with 127.0.0.1 allowed', () => {
    it('fetches the allowed address, in any spelling', async () => {
      const fetcher = open(['127.0.0.1']);
      for (const host of ['127.0.0.1', '2130706433', '0x7f.0.0.1', '127.1', '[::ffff:127.0.0.1]']) {
        const resource = await fetcher.fetch(`http://${host}:${web.port}/notes.txt`, { timeoutMs: 2_000 });
        assert.equal(resource.status, 200);
        assert.equal(resource.body.toString(), 'Plain notes.\nSecond line.\n');
      }
    });

    it('refuses a redirect to IPv6 loopback, a private or metadata address, localhost or another scheme', async () => {
      const fetcher = open(['127.0.0.1']);
      const targets = [
        `http://[::1]:${web.port}/secret`,
        'http://10.0.0.1/secret',
        'http://169.254.169.254/latest/meta-data/',
        `http://[::ffff:10.0.0.1]:${web.port}/secret`,
        `http://localhost:${web.port}/secret`,
      ];
      for (const target of targets) {
        const start = web.url(`/redirect/to?location=${encodeURIComponent(target)}`);
        await assertRefused(fetcher, start, ['redirects to', 'private address']);
      }
      // localhost resolves to the allowed 127.0.0.1 and the server listens there: only the guard kept it out.
      assert.equal(web.hits('/secret'), 0);
      const toFile = web.url(`/redirect/to?location=${encodeURIComponent('file:///etc/passwd')}`);
      await assertRefused(fetcher, toFile, ['redirects to file:///etc/passwd', 'not an http or https URL']);
    });
  });

  describe('with only the name site.test allowed (127.0.0.1 behind it)', () => {
    it('fetches site.test, refuses other names and the literal address of the same server', async () => {
      const fetcher = open(['site.test']);
      const resource = await fetcher.fetch(web.url('/notes.txt', 'site.test'), { timeoutMs: 2_000 });
      assert.equal(resource.status, 200);
      await assertRefused(fetcher, web.url('/secret', 'secret.test'), ['resolves to a private address']);
      await assertRefused(fetcher, web.url('/secret'), ['is a private address']);
      assert.equal(web.hits('/secret'), 0);
    });

    it('refuses a redirect from the allowed host to another name of the same address', async () => {
      const fetcher = open(['site.test']);
      const start = web.url(`/redirect/to?location=${encodeURIComponent(web.url('/secret', 'secret.test'))}`, 'site.test');
      await assertRefused(fetcher, start, ['redirects to', 'secret.test', 'resolves to a private address']);
      assert.equal(web.hits('/secret'), 0);
    });

    it('resolves a name once, inside the connection, so what was checked is what is connected to', async () => {
      const calls: string[] = [];
      const fetcher = open(['site.test'], calls);
      await fetcher.fetch(web.url('/notes.txt', 'site.test'), { timeoutMs: 2_000 });
      assert.deepEqual(calls, ['site.test']);
    });
  });

  it('says a host name that does not resolve does not resolve (not a private address)', async () => {
    await assert.rejects(open([]).fetch('http://nowhere.test/', { timeoutMs: 2_000 }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, '1214');
      assert.match(error.message, /host name nowhere\.test .* does not resolve/);
      return true;
    });
  });
});
