import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ApiError } from '../../core/errors/api-error.ts';
import type { PageSize } from './page-sizes.ts';
import { headlessChromiumArgs } from '../../tools/browser/headless-chromium-args.ts';
import { loadChromium } from '../../tools/browser/load-chromium.ts';

interface Launched {
  readonly context: BrowserContext;
  /** The fresh profile folder, removed on close. */
  readonly profile: string;
}

/**
 * Draws the agent's HTML pages to PDF and PNG in headless Chromium: one browser, launched on
 * first use with a fresh profile and closed by `close()`. The pages are the agent's own
 * templates and need nothing from outside, so the browser is cut off from the network three
 * ways: offline emulation, every request aborted, and a resolver that resolves nothing. Scripts
 * are off. Each render gets its own tab, closed when the caller's signal aborts.
 */
export class SlideRenderer {
  readonly #executablePath: string;
  #launching: Promise<Launched> | undefined;

  constructor(executablePath: string) {
    this.#executablePath = executablePath;
  }

  /** One PDF of the document; each page takes the size its CSS `@page` rule gives. */
  pdf(html: string, signal: AbortSignal): Promise<Buffer> {
    return this.#withPage(signal, async (page) => {
      await page.setContent(html, { waitUntil: 'load' });
      return page.pdf({ preferCSSPageSize: true, printBackground: true });
    });
  }

  /** A PNG of the document drawn in a viewport of `pixels`. */
  png(html: string, pixels: PageSize, signal: AbortSignal): Promise<Buffer> {
    return this.#withPage(signal, async (page) => {
      await page.setViewportSize({ width: pixels.width, height: pixels.height });
      await page.setContent(html, { waitUntil: 'load' });
      try {
        return await page.screenshot({ type: 'png', fullPage: false });
      } catch (error) {
        // Headless Chromium on a busy host sometimes has no frame to capture yet ("Unable to capture screenshot"); the page is still there to draw once more.
        signal.throwIfAborted();
        if (!/Unable to capture screenshot/.test((error as Error).message)) throw error;
        return page.screenshot({ type: 'png', fullPage: false });
      }
    });
  }

  async close(): Promise<void> {
    const launching = this.#launching;
    this.#launching = undefined;
    const launched = await launching?.catch(() => undefined);
    if (launched === undefined) return;
    await launched.context.close().catch(() => undefined);
    await rm(launched.profile, { recursive: true, force: true });
  }

  async #withPage(signal: AbortSignal, draw: (page: Page) => Promise<Buffer>): Promise<Buffer> {
    signal.throwIfAborted();
    const { context } = await this.#launch();
    const page = await context.newPage();
    const closeOnAbort = (): void => void page.close().catch(() => undefined);
    signal.addEventListener('abort', closeOnAbort, { once: true });
    try {
      return await draw(page);
    } catch (error) {
      signal.throwIfAborted();
      throw new ApiError('500', `The slides could not be drawn in Chromium: ${(error as Error).message.split('\n')[0] ?? ''}`);
    } finally {
      signal.removeEventListener('abort', closeOnAbort);
      await page.close().catch(() => undefined);
    }
  }

  #launch(): Promise<Launched> {
    if (this.#launching === undefined) {
      const launching = this.#start();
      this.#launching = launching;
      const forget = (): void => {
        if (this.#launching === launching) this.#launching = undefined;
      };
      // A browser that crashed or failed to start is launched again by the next render.
      launching.then(
        (launched) =>
          launched.context.on('close', () => {
            forget();
            void rm(launched.profile, { recursive: true, force: true }).catch(() => undefined);
          }),
        forget,
      );
    }
    return this.#launching;
  }

  async #start(): Promise<Launched> {
    const profile = await mkdtemp(join(tmpdir(), 'slides-chromium-'));
    try {
      const context = await (
        await loadChromium()
      ).launchPersistentContext(profile, {
        executablePath: this.#executablePath,
        headless: true,
        offline: true,
        javaScriptEnabled: false,
        acceptDownloads: false,
        serviceWorkers: 'block',
        args: [...headlessChromiumArgs],
      });
      await context.route('**/*', (route) => route.abort('blockedbyclient').catch(() => undefined));
      return { context, profile };
    } catch (error) {
      await rm(profile, { recursive: true, force: true });
      throw new ApiError(
        '500',
        `Chromium (${this.#executablePath}) could not be started for the slides agent: ${(error as Error).message.split('\n')[0] ?? ''}`,
      );
    }
  }
}
