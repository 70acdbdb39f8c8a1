import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readHttpUrl } from '../../../src/tools/fetch/http-url.ts';

describe('readHttpUrl: only text that already is a clean absolute http(s) URL', () => {
  it('reads clean URLs, in any letter case, with ports, IDN hosts, @ after the host and address spellings the guard judges', () => {
    for (const [text, href] of [
      ['http://example.com/x.png', 'http://example.com/x.png'],
      ['HTTPS://Example.com:8443/a?b#c', 'https://example.com:8443/a?b#c'],
      ['http://example.com/path@part?q=@', 'http://example.com/path@part?q=@'],
      ['http://例子.测试/', 'http://xn--fsqu00a.xn--0zwm56d/'],
      ['http://2130706433/', 'http://127.0.0.1/'],
      ['http://[::1]:8080/', 'http://[::1]:8080/'],
    ] as const) {
      assert.equal(readHttpUrl(text).url?.href, href, text);
    }
  });

  it('refuses what the WHATWG parser would repair or read otherwise than another parser', () => {
    for (const [text, problem] of [
      [' http://example.com/', 'spaces'],
      ['http://example.com/ ', 'spaces'],
      ['\thttp://example.com/', 'spaces'],
      ['http://exam\nple.com/', 'spaces'],
      ['http://example.com/a b', 'spaces'],
      ['\u0000http://example.com/', 'control characters'],
      ['http:\\\\example.com\\', 'backslashes'],
      ['http://example.com\\@10.0.0.1/', 'backslashes'],
      ['http:/example.com/', "'http(s)://host/...'"],
      ['http:example.com/', "'http(s)://host/...'"],
      ['http:///example.com/', "'http(s)://host/...'"],
      ['http://public.example@127.0.0.1/', 'credentials'],
      ['http://user:secret@example.com/', 'credentials'],
      ['file:///etc/passwd', 'not an http or https URL'],
      ['gopher://example.com/', 'not an http or https URL'],
      ['ftp://example.com/', 'not an http or https URL'],
      ['//example.com/', 'not a valid URL'],
      ['example.com', 'not a valid URL'],
    ] as const) {
      const reading = readHttpUrl(text);
      assert.equal(reading.url, undefined, JSON.stringify(text));
      assert.ok(reading.problem?.includes(problem), `${JSON.stringify(text)}: ${reading.problem}`);
    }
  });
});
