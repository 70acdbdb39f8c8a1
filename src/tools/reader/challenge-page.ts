/**
 * Bot checks ("Just a moment...", CAPTCHA walls) answer with a page of their own instead of the
 * content; the reader must say so rather than hand that page out as the article. A title of a
 * known challenge is enough. Markup markers alone are not (Cloudflare also injects its
 * challenge-platform script into ordinary pages), so they count only when the page has little
 * readable text.
 */
const challengeTitles = [
  /^just a moment\.*$/i,
  /^attention required!? \| cloudflare$/i,
  /^ddos-guard$/i,
  /^checking your browser/i,
  /^verifying you are human/i,
  /^pardon our interruption$/i,
  /^are you a robot\??$/i,
  /^human verification$/i,
];

const challengeMarkers = [
  'cf-chl-',
  'cf_chl_opt',
  '/cdn-cgi/challenge-platform/',
  'id="challenge-running"',
  'id="challenge-form"',
  'px-captcha',
  '_incapsula_resource',
  'captcha-delivery.com',
  'enable javascript and cookies to continue',
  'checking your browser before accessing',
  'verify you are human',
];

/** Text shorter than this (characters) is what a challenge page carries, not an article. */
const shortText = 1000;

export function looksLikeChallenge(title: string, html: string, readableTextLength: number): boolean {
  const trimmedTitle = title.trim();
  if (challengeTitles.some((pattern) => pattern.test(trimmedTitle))) return true;
  if (readableTextLength >= shortText) return false;
  const lower = html.toLowerCase();
  return challengeMarkers.some((marker) => lower.includes(marker));
}
