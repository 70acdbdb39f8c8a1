import type { BrowserType } from 'playwright-core';

/**
 * Playwright's Chromium driver, loaded on first use: playwright-core is the heaviest module the
 * platform has (~25 MB of heap and ~0.8 s to load), and most processes never start a browser.
 */
export async function loadChromium(): Promise<BrowserType> {
  const { chromium } = await import('playwright-core');
  return chromium;
}
