import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isFailoverEligible } from '../../../src/core/routing/failover-eligible.ts';
import { EngineMediaDownload } from '../../../src/tools/media/engine-media-download.ts';
import { assertApiError, assertEngineFailure, rejection } from '../../helpers/api-error-assertions.ts';
import { startFakeWeb, type FakeWeb } from '../../helpers/fake-web.ts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("EngineMediaDownload: the media an engine answers with by URL, its failures the engine's", () => {
  let web: FakeWeb;
  let download: EngineMediaDownload;
  const signal = () => AbortSignal.timeout(30_000);

  before(async () => {
    web = await startFakeWeb();
    // The fake web stands for the engine: its own origin is trusted though it is on loopback.
    download = new EngineMediaDownload('my-painter', web.origin);
  });
  after(async () => {
    await download.close();
    await web.close();
  });

  it("downloads media on the engine's own origin", async () => {
    const media = await download.download(web.url('/images/photo.png'), 1024 * 1024, signal());
    assert.equal(media.declaredType, 'image/png');
    assert.ok(media.bytes.byteLength > 0);
  });

  it('is a broken answer when the URL is not http(s), leads to a private address, loops or is missing, with the code clients saw before and the URL masked for them', async () => {
    const cases: [string, string][] = [
      ['ftp://media.example/picture.png', 'not an http(s) URL'],
      [`http://127.0.0.1:${await closedPort()}/secret.png`, 'private address'],
      [web.url('/redirect/loop'), 'redirects more than'],
      [web.url('/status/404'), 'answered HTTP 404'],
    ];
    for (const [url, mention] of cases) {
      const error = await rejection(download.download(url, 1024 * 1024, signal()));
      assertEngineFailure(error, 'bad-answer', 'my-painter', mention);
      // The log keeps the URL; the caller reads <url> in its place (docs/security.md: engine addresses).
      assertApiError(error, '500', 'my-painter', '<url>');
    }
  });

  it('says the engine failed when its media server answers 5xx, and passes on the status', async () => {
    const error = await rejection(download.download(web.url('/status/503'), 1024 * 1024, signal()));
    assertEngineFailure(error, 'engine-error', 'answered HTTP 503');
    assert.equal(error.engineStatus, 503);
    assertApiError(error, '500');
    // The media was generated already: another deployment would generate it again.
    assert.equal(isFailoverEligible(error), false);
  });

  it('is too large past the cap (1230, as every engine answer over a cap), and unreachable when the engine is down (1234)', async () => {
    const large = await rejection(download.download(web.url('/huge'), 1024 * 1024, signal()));
    assertEngineFailure(large, 'too-large', 'could not download', '1 MB');
    assertApiError(large, '1230');

    const port = await closedPort();
    const down = new EngineMediaDownload('my-painter', `http://127.0.0.1:${port}`);
    try {
      const error = await rejection(down.download(`http://127.0.0.1:${port}/output.png`, 1024 * 1024, signal()));
      assertEngineFailure(error, 'unreachable', 'could not download', 'ECONNREFUSED');
      assertApiError(error, '1234');
      assert.equal(isFailoverEligible(error), false);
    } finally {
      await down.close();
    }
  });

  it("rethrows the caller's abort as it is", async () => {
    const caller = new AbortController();
    const reason = new Error('the client went away');
    const pending = download.download(web.url('/slow'), 1024 * 1024, caller.signal);
    setTimeout(() => caller.abort(reason), 50);
    assert.equal(await rejection(pending), reason);
  });
});
