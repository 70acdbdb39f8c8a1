import type { Browser, Route } from 'playwright-core';
import { ApiError } from '../../core/errors/api-error.ts';
import type { FetchedResource, GuardedFetcher } from '../fetch/guarded-fetcher.ts';
import { headlessChromiumArgs } from '../browser/headless-chromium-args.ts';
import { loadChromium } from '../browser/load-chromium.ts';
import { nullPrototypeRecord } from '../../core/objects/null-prototype-record.ts';

export interface PageRendererOptions {
  readonly executablePath: string;
  readonly userAgent: string;
}

/** Request headers the HTTP client sets itself or refuses; the browser's values are dropped. */
const ownHeaders = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'accept-encoding',
]);
/** Not needed to build the page's text, and the heaviest part of most pages. */
const skippedResources = new Set(['image', 'media', 'font']);
/** After `load`, how long to wait for the network to fall quiet (script-fetched content). */
const settleMs = 2_000;

/**
 * Renders script-built pages in headless Chromium (config `reader.render`). The browser never
 * reaches the network itself: every request it makes is intercepted and fetched by the guarded
 * fetcher, so the SSRF guard sees each one. Redirects are followed by the fetcher (each hop
 * checked), never handed to the browser: Chromium sends the request that follows a fulfilled
 * redirect straight to the network, past the interception. As a second wall, the browser's own
 * DNS resolves nothing, address literals included (`--host-resolver-rules`), and its proxy is an
 * address that does not exist (loopback not exempted), so whatever escaped interception fails
 * without connecting anywhere; WebSockets are closed and service workers blocked. The main
 * document is the one the reader already fetched. One browser, launched on first use, is
 * shared; each render gets its own context.
 */
export class PageRenderer {
  readonly #fetcher: GuardedFetcher;
  readonly #options: PageRendererOptions;
  #browser: Promise<Browser> | undefined;

  constructor(fetcher: GuardedFetcher, options: PageRendererOptions) {
    this.#fetcher = fetcher;
    this.#options = options;
  }

  /** The page's HTML after its scripts ran, and the URL it ended on. */
  async render(document: FetchedResource, deadline: number, signal: AbortSignal): Promise<{ html: string; url: string }> {
    const browser = await this.#launch();
    const context = await browser.newContext({ serviceWorkers: 'block', userAgent: this.#options.userAgent, acceptDownloads: false });
    const closeOnAbort = (): void => void context.close().catch(() => undefined);
    signal.addEventListener('abort', closeOnAbort, { once: true });
    try {
      await context.routeWebSocket(/.*/, (socket) => socket.close());
      let documentServed = false;
      await context.route('**/*', async (route) => {
        const request = route.request();
        if (!documentServed && request.isNavigationRequest() && withoutHash(request.url()) === withoutHash(document.url)) {
          documentServed = true;
          await fulfill(route, document);
        } else {
          await this.#serve(route, deadline, signal);
        }
      });
      const page = await context.newPage();
      // The document itself is already here; a subresource that keeps `load` from firing before
      // the deadline should not cost the page: what the scripts built by then is read.
      await page.goto(document.url, { waitUntil: 'load', timeout: remaining(deadline) }).catch((error: unknown) => {
        if (!(error instanceof Error && error.name === 'TimeoutError')) throw error;
      });
      await page.waitForLoadState('networkidle', { timeout: Math.min(settleMs, remaining(deadline)) }).catch(() => undefined);
      return { html: await page.content(), url: page.url() };
    } finally {
      signal.removeEventListener('abort', closeOnAbort);
      await context.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const browser = this.#browser;
    this.#browser = undefined;
    if (browser !== undefined) await (await browser.catch(() => undefined))?.close();
  }

  async #serve(route: Route, deadline: number, signal: AbortSignal): Promise<void> {
    const request = route.request();
    if (skippedResources.has(request.resourceType()) || !/^https?:/.test(request.url())) {
      await route.abort('blockedbyclient').catch(() => undefined);
      return;
    }
    // The page's scripts choose these names: a null-prototype object, so none can reach a prototype.
    const headers = nullPrototypeRecord<string>();
    for (const [name, value] of Object.entries(await request.allHeaders())) {
      if (!ownHeaders.has(name.toLowerCase()) && !name.startsWith(':')) headers[name] = value;
    }
    try {
      const body = request.postDataBuffer();
      const resource = await this.#fetcher.fetch(request.url(), {
        method: request.method(),
        headers,
        ...(body === null ? {} : { body }),
        timeoutMs: remaining(deadline),
        signal,
      });
      await fulfill(route, resource);
    } catch (error) {
      // A refused address (1214) is what an ad blocker's refusal looks like to the page.
      const reason = error instanceof ApiError && error.code === '1214' ? 'blockedbyclient' : 'failed';
      await route.abort(reason).catch(() => undefined);
    }
  }

  #launch(): Promise<Browser> {
    this.#browser ??= loadChromium()
      .then((chromium) =>
        chromium.launch({
          executablePath: this.#options.executablePath,
          headless: true,
          args: [
            ...headlessChromiumArgs,
            '--proxy-server=http://proxy.invalid:1',
            '--proxy-bypass-list=<-loopback>',
            '--force-webrtc-ip-handling-policy',
            '--webrtc-ip-handling-policy=disable_non_proxied_udp',
          ],
        }),
      )
      .then((browser) => {
        browser.on('disconnected', () => {
          this.#browser = undefined;
        });
        return browser;
      });
    const launching = this.#browser;
    launching.catch(() => {
      if (this.#browser === launching) this.#browser = undefined;
    });
    return launching;
  }
}

function fulfill(route: Route, resource: FetchedResource): Promise<void> {
  return route.fulfill({ status: resource.status, headers: resource.headers, body: resource.body }).catch(() => undefined);
}

function withoutHash(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}
