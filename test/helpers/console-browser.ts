import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { consoleBuildFolder } from '../../src/http/console.route.ts';
import { loadChromium } from '../../src/tools/browser/load-chromium.ts';

/**
 * The operator console in headless Debian Chromium, for the browser tests: the console is built
 * first when dist/console is missing (as `npm run build` would), every page is watched for console
 * errors and failed requests, and screenshots go to one folder that is printed once.
 */

const root = new URL('../../', import.meta.url).pathname;

/** Screenshots of every page, for a person to look at: CONSOLE_SCREENSHOTS, or .tmp/console-screenshots in the checkout. */
const screenshotFolder = process.env['CONSOLE_SCREENSHOTS'] ?? join(root, '.tmp', 'console-screenshots');

/** The console's pages as its navigation names them, with the heading each shows and the name of its screenshot. */
export const consolePages = [
  { label: 'Overview', heading: 'Overview', file: 'overview', adminOnly: false },
  { label: 'Keys', heading: 'Keys', file: 'keys', adminOnly: true },
  { label: 'Usage & spend', heading: 'Usage & spend', file: 'usage', adminOnly: false },
  { label: 'Tasks', heading: 'Tasks', file: 'tasks', adminOnly: false },
  { label: 'Files & knowledge', heading: 'Files & knowledge bases', file: 'files', adminOnly: false },
  { label: 'Models', heading: 'Models', file: 'models', adminOnly: false },
  { label: 'Playground', heading: 'Playground', file: 'playground', adminOnly: false },
] as const;

export const viewports = {
  desktop: { width: 1280, height: 860 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * Builds the console (Vite) unless a build is there; the tests serve what a fresh install would.
 * Test files run at once, so each builds into a folder of its own and moves it into place: the
 * first to finish wins, and the others' copies go.
 */
export function ensureConsoleBuilt(): void {
  if (existsSync(join(consoleBuildFolder, 'index.html'))) return;
  const own = `${consoleBuildFolder.replace(/\/$/, '')}.${process.pid}`;
  execFileSync(join(root, 'node_modules', '.bin', 'vite'), ['build', '--config', 'src/console/vite.config.ts', '--outDir', own], {
    cwd: root,
    stdio: 'inherit',
  });
  try {
    renameSync(own, consoleBuildFolder);
  } catch {
    rmSync(own, { recursive: true, force: true });
  }
}

// The platform's own headless flags, less its host-resolver rule: the console is reached at 127.0.0.1.
const browserArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(screenshotFolder, { recursive: true });
  console.log(`console screenshots: ${screenshotFolder}`);
  const chromium = await loadChromium();
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: browserArgs });
}

/** A refusal the scenario expects: the API answering this path (method and status) is part of the test. */
export interface ExpectedRefusal {
  readonly path: RegExp;
  readonly status: number;
}

/**
 * A page whose problems are collected: console errors, requests that failed, and answers of 400 or
 * more. `assertClean` fails unless each refused answer was expected (the browser logs each as a
 * console error too, which it then matches) and nothing else went wrong.
 */
export class WatchedPage {
  readonly problems: string[] = [];
  readonly refusals: { url: string; status: number }[] = [];

  constructor(readonly page: Page) {
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of')) {
        this.problems.push(`console error: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => this.problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => {
      // A stream the page stopped itself, or a download the page let go, is not a failure.
      if (request.failure()?.errorText !== 'net::ERR_ABORTED')
        this.problems.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) this.refusals.push({ url: response.url(), status: response.status() });
    });
  }

  assertClean(expected: readonly ExpectedRefusal[] = []): void {
    const unexpected = this.refusals.filter(
      (refusal) =>
        !expected.some((allowed) => allowed.status === refusal.status && allowed.path.test(new URL(refusal.url).pathname + new URL(refusal.url).search)),
    );
    assert.deepEqual([...this.problems, ...unexpected.map((refusal) => `refused: ${refusal.status} ${refusal.url}`)], []);
  }

  /**
   * Fails when anything in the page's main area reaches past the window's left or right edge: what
   * a person would have to scroll sideways to reach (a table's last columns, a row's controls).
   */
  async assertFitsWidth(): Promise<void> {
    const outside = (await this.page.evaluate(`(() => {
      const width = document.documentElement.clientWidth;
      return [...document.querySelectorAll('main *')]
        .filter((element) => {
          const box = element.getBoundingClientRect();
          return box.width > 0 && (box.right > width + 1 || box.left < -1);
        })
        .map((element) => element.tagName.toLowerCase() + ' ' + JSON.stringify((element.textContent ?? '').slice(0, 40)));
    })()`)) as string[];
    assert.deepEqual(outside, [], `wider than the window (${await this.page.evaluate('location.pathname')})`);
  }

  async screenshot(name: string): Promise<void> {
    await this.page.screenshot({ path: join(screenshotFolder, `${name}.png`), fullPage: true });
  }
}

export async function openWatchedPage(
  browser: Browser,
  baseUrl: string,
  viewport: { width: number; height: number } = viewports.desktop,
): Promise<WatchedPage> {
  // Reduced motion: the console then switches pages and drawers without transitions, so a screenshot never catches one half-way.
  const context = await browser.newContext({ viewport, baseURL: baseUrl, reducedMotion: 'reduce' });
  return new WatchedPage(await context.newPage());
}

/** Signs in on the sign-in page with `key` and waits for the console's navigation. */
export async function signIn(watched: WatchedPage, key: string): Promise<void> {
  const { page } = watched;
  await page.goto('/console/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Goes to a console page through its navigation link, as a person would (the burger menu at phone width). */
export async function visit(watched: WatchedPage, label: string, heading: string): Promise<void> {
  const { page } = watched;
  const burger = page.getByRole('button', { name: 'Toggle navigation' });
  if (await burger.isVisible()) await burger.click();
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { name: heading, level: 2 }).waitFor();
}

/** Picks `option` in the select labelled `label` (a searchable select is a textbox, a plain one a combobox). */
export async function chooseOption(page: Page, label: string, option: string): Promise<void> {
  await page
    .getByRole('textbox', { name: label, exact: true })
    .or(page.getByRole('combobox', { name: label, exact: true }))
    .first()
    .click();
  await page.getByRole('option', { name: option, exact: true }).click();
}
