/**
 * Debian Chromium, headless, as the platform runs it (ENVIRONMENT.md): no sandbox (containers),
 * no GPU, none of the browser's own network traffic, and no name resolution of its own — pages
 * reach the network only where the caller routes them.
 */
export const headlessChromiumArgs: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND',
];
