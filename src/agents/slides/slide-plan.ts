/** The slide layouts the templates draw. */
export const slideLayouts = ['title', 'section', 'bullets', 'two_column', 'quote'] as const;
type SlideLayout = (typeof slideLayouts)[number];

export const themeNames = ['light', 'dark', 'ocean', 'forest', 'sunset'] as const;
export type ThemeName = (typeof themeNames)[number];

export interface PlanTheme {
  readonly name: ThemeName;
  /** `#rgb` or `#rrggbb`; anything else is dropped, since it is written into CSS. */
  readonly accent?: string;
}

export interface PlanColumn {
  readonly heading: string;
  readonly bullets: readonly string[];
}

/** One slide; the fields a layout does not use stay empty. */
export interface PlanSlide {
  readonly layout: SlideLayout;
  readonly title: string;
  readonly subtitle: string;
  readonly bullets: readonly string[];
  /** The quote of a `quote` slide, or a paragraph under the title. */
  readonly text: string;
  readonly attribution: string;
  readonly left: PlanColumn;
  readonly right: PlanColumn;
  readonly notes: string;
}

export interface PosterSection {
  readonly heading: string;
  readonly text: string;
  readonly bullets: readonly string[];
}

export type SlidePlan =
  | { readonly kind: 'deck'; readonly title: string; readonly theme: PlanTheme; readonly slides: readonly PlanSlide[] }
  | {
      readonly kind: 'poster';
      readonly title: string;
      readonly subtitle: string;
      readonly theme: PlanTheme;
      readonly sections: readonly PosterSection[];
      readonly footer: string;
    };

export const planLimits = { slides: 40, sections: 12, bullets: 12, textChars: 1_200 } as const;

/** Thrown with a message the model is shown when it is asked to fix its answer. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
}

const layoutAliases: Readonly<Record<string, SlideLayout>> = {
  title: 'title',
  cover: 'title',
  title_slide: 'title',
  closing: 'title',
  end: 'title',
  section: 'section',
  section_header: 'section',
  divider: 'section',
  bullets: 'bullets',
  bullet: 'bullets',
  list: 'bullets',
  content: 'bullets',
  text: 'bullets',
  agenda: 'bullets',
  two_column: 'two_column',
  columns: 'two_column',
  comparison: 'two_column',
  two_columns: 'two_column',
  quote: 'quote',
};

/**
 * The plan in a chat model's answer, read leniently: Markdown fences and text around the JSON
 * object are ignored, common synonyms are accepted (`type` for `layout`, `points` for
 * `bullets`...), and over-long lists are cut. What cannot be read throws PlanError saying where.
 */
export function parseSlidePlan(answer: string): SlidePlan {
  const value = parseJsonObject(answer);
  const theme = readTheme(value['theme']);
  const slides = value['slides'];
  const sections = value['sections'];
  const wantsPoster = value['kind'] === 'poster' || value['type'] === 'poster' || (Array.isArray(sections) && !Array.isArray(slides));
  if (wantsPoster) {
    if (!Array.isArray(sections) || sections.length === 0) throw new PlanError('a poster needs a non-empty "sections" array');
    const title = requiredText(value['title'], 'title');
    return {
      kind: 'poster',
      title,
      subtitle: text(value['subtitle']),
      theme,
      sections: sections.slice(0, planLimits.sections).map((section, index) => readSection(section, `sections[${index}]`)),
      footer: text(value['footer']),
    };
  }
  if (!Array.isArray(slides) || slides.length === 0) throw new PlanError('a deck needs a non-empty "slides" array');
  const deckSlides = slides.slice(0, planLimits.slides).map((slide, index) => readSlide(slide, `slides[${index}]`));
  const title = text(value['title']) || (deckSlides[0]?.title ?? '');
  if (title === '') throw new PlanError('"title" must be a non-empty string');
  return { kind: 'deck', title, theme, slides: deckSlides };
}

/** The pages' titles, for the answer text. */
export function pageTitles(plan: SlidePlan): string[] {
  return plan.kind === 'poster' ? [plan.title] : plan.slides.map((slide) => slide.title || slide.text.slice(0, 60));
}

function parseJsonObject(answer: string): Record<string, unknown> {
  const unfenced = answer.replace(/```(?:json)?/gi, '');
  const start = unfenced.indexOf('{');
  const end = unfenced.lastIndexOf('}');
  if (start < 0 || end < start) throw new PlanError('the answer holds no JSON object');
  let value: unknown;
  try {
    value = JSON.parse(unfenced.slice(start, end + 1));
  } catch (error) {
    throw new PlanError(`the answer is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new PlanError('the answer must be one JSON object');
  return value;
}

function readSlide(value: unknown, path: string): PlanSlide {
  if (!isObject(value)) throw new PlanError(`${path} must be an object`);
  const bullets = list(value['bullets'] ?? value['points'] ?? value['items'] ?? (Array.isArray(value['content']) ? value['content'] : undefined));
  const left = readColumn(value['left'] ?? (Array.isArray(value['columns']) ? value['columns'][0] : undefined));
  const right = readColumn(value['right'] ?? (Array.isArray(value['columns']) ? value['columns'][1] : undefined));
  const paragraph = text(value['text'] ?? value['quote'] ?? value['body'] ?? (typeof value['content'] === 'string' ? value['content'] : undefined));
  const named =
    layoutAliases[
      text(value['layout'] ?? value['type'])
        .toLowerCase()
        .replace(/[-\s]/g, '_')
    ];
  const layout: SlideLayout =
    named ?? (left.bullets.length > 0 || right.bullets.length > 0 ? 'two_column' : bullets.length > 0 ? 'bullets' : paragraph !== '' ? 'quote' : 'title');
  const slide: PlanSlide = {
    layout,
    title: text(value['title'] ?? value['heading']),
    subtitle: text(value['subtitle']),
    bullets,
    text: paragraph,
    attribution: text(value['attribution'] ?? value['author']),
    left,
    right,
    notes: text(value['notes']),
  };
  if (layout === 'quote' && slide.text === '') throw new PlanError(`${path} is a quote slide without "text"`);
  if (layout !== 'quote' && slide.title === '') throw new PlanError(`${path}.title must be a non-empty string`);
  return slide;
}

function readColumn(value: unknown): PlanColumn {
  if (Array.isArray(value)) return { heading: '', bullets: list(value) };
  if (!isObject(value)) return { heading: '', bullets: [] };
  return { heading: text(value['heading'] ?? value['title']), bullets: list(value['bullets'] ?? value['points'] ?? value['items']) };
}

function readSection(value: unknown, path: string): PosterSection {
  if (!isObject(value)) throw new PlanError(`${path} must be an object`);
  const section = {
    heading: text(value['heading'] ?? value['title']),
    text: text(value['text'] ?? value['body'] ?? (typeof value['content'] === 'string' ? value['content'] : undefined)),
    bullets: list(value['bullets'] ?? value['points'] ?? (Array.isArray(value['content']) ? value['content'] : undefined)),
  };
  if (section.heading === '') throw new PlanError(`${path}.heading must be a non-empty string`);
  return section;
}

function readTheme(value: unknown): PlanTheme {
  const name = text(isObject(value) ? value['name'] : value).toLowerCase();
  const accent = isObject(value) ? text(value['accent']) : '';
  const known = (themeNames as readonly string[]).includes(name) ? (name as ThemeName) : 'light';
  return /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(accent) ? { name: known, accent } : { name: known };
}

function requiredText(value: unknown, path: string): string {
  const found = text(value);
  if (found === '') throw new PlanError(`"${path}" must be a non-empty string`);
  return found;
}

/** A string (numbers too), trimmed and cut to the limit; '' for anything else. */
function text(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return '';
  const trimmed = value.trim();
  return trimmed.length > planLimits.textChars ? `${trimmed.slice(0, planLimits.textChars - 1)}…` : trimmed;
}

/** Strings of a list (items may be objects with `text`), empty ones dropped, at most the limit. */
function list(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((item) => text(isObject(item) ? (item['text'] ?? item['title']) : item))
    .filter((item) => item !== '')
    .slice(0, planLimits.bullets);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
