import { sameSize, type PageSize } from './page-sizes.ts';
import type { PlanColumn, PlanSlide, PosterSection, SlidePlan } from './slide-plan.ts';
import { pageStylesheet, themeVariables } from './slide-themes.ts';

/** `print`: pages sized in points for page.pdf; `screen`: one page filling the viewport, for a PNG. */
export type RenderMode = 'print' | 'screen';

/** A page to draw: its index in the plan (from 0) and its size. */
export interface PageToDraw {
  readonly index: number;
  readonly size: PageSize;
}

/**
 * The HTML of the given pages of a plan. Every text of the plan is escaped; the only values
 * written into CSS are numbers and the theme's checked colours. The document loads nothing.
 */
export function planDocument(plan: SlidePlan, pages: readonly PageToDraw[], mode: RenderMode): string {
  const sizes = distinctSizes(pages.map((page) => page.size));
  const pageRules =
    mode === 'print'
      ? sizes
          .map(
            (size, sizeIndex) =>
              `@page size${sizeIndex} { size: ${size.width}pt ${size.height}pt; margin: 0; }\n` +
              `.size${sizeIndex} { page: size${sizeIndex}; width: ${size.width}pt; height: ${size.height}pt; }`,
          )
          .join('\n')
      : '';
  const body = pages
    .map((page) => {
      const sizeClass = mode === 'print' ? ` size${sizes.findIndex((size) => sameSize(size, page.size))}` : '';
      return drawPage(plan, page.index, sizeClass);
    })
    .join('\n');
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(plan.title)}</title>` +
    `<style>@page { margin: 0; }\n${pageStylesheet}\n${pageRules}</style></head>` +
    `<body class="${mode}" style="${themeVariables(plan.theme)}">${body}</body></html>`
  );
}

function drawPage(plan: SlidePlan, index: number, sizeClass: string): string {
  if (plan.kind === 'poster') return drawPoster(plan.title, plan.subtitle, plan.sections, plan.footer, sizeClass);
  const slide = plan.slides[index];
  if (slide === undefined) throw new Error(`the plan has no page ${index + 1}`);
  const number = slide.layout === 'title' ? '' : `<div class="number">${index + 1} / ${plan.slides.length}</div>`;
  return `<section class="page ${slide.layout}${sizeClass}" style="--fit:${fitOf(slide)}"><div class="inner">${slideBody(slide)}</div>${number}</section>`;
}

function slideBody(slide: PlanSlide): string {
  switch (slide.layout) {
    case 'title':
      return `<h1>${escapeHtml(slide.title)}</h1><div class="bar"></div>${optional('p class="subtitle"', slide.subtitle || slide.text)}`;
    case 'section':
      return `<h1>${escapeHtml(slide.title)}</h1>${optional('p class="subtitle"', slide.subtitle || slide.text)}`;
    case 'bullets':
      return `<h2>${escapeHtml(slide.title)}</h2><div class="bar"></div>${optional('p', slide.text)}${bulletList(slide.bullets)}`;
    case 'two_column':
      return `<h2>${escapeHtml(slide.title)}</h2><div class="columns">${column(slide.left)}${column(slide.right)}</div>`;
    case 'quote':
      return `${optional('h3', slide.title)}<blockquote>“${escapeHtml(slide.text)}”</blockquote>${optional('p class="attribution"', slide.attribution && `— ${slide.attribution}`)}`;
  }
}

function drawPoster(title: string, subtitle: string, sections: readonly PosterSection[], footer: string, sizeClass: string): string {
  const characters = sections.reduce((sum, section) => sum + section.heading.length + section.text.length + section.bullets.join('').length + 30, 0);
  const columns = sections.length <= 3 ? 1 : 2;
  const blocks = sections
    .map((section) => `<div class="column">${optional('h3', section.heading)}${optional('p', section.text)}${bulletList(section.bullets)}</div>`)
    .join('');
  return (
    `<section class="page poster${sizeClass}" style="--fit:${fit(characters, 1_600, 1.4)};--section-columns:${columns}"><div class="inner">` +
    `<h1>${escapeHtml(title)}</h1>${optional('p class="subtitle"', subtitle)}<div class="bar"></div>` +
    `<div class="sections">${blocks}</div>${optional('p class="footer"', footer)}</div></section>`
  );
}

function column(content: PlanColumn): string {
  return `<div class="column">${optional('h3', content.heading)}${bulletList(content.bullets)}</div>`;
}

function bulletList(items: readonly string[]): string {
  return items.length === 0 ? '' : `<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;
}

/** `<tag>text</tag>` when there is text; `tag` may carry attributes. */
function optional(tag: string, text: string): string {
  if (text === '') return '';
  const name = tag.split(' ')[0] ?? tag;
  return `<${tag}>${escapeHtml(text)}</${name}>`;
}

/** Text on a slide shrinks as it grows past what fits at full size (never below 55 %); a poster's short text grows. */
function fitOf(slide: PlanSlide): number {
  switch (slide.layout) {
    case 'bullets':
      return fit(slide.title.length + slide.text.length + slide.bullets.join('').length + slide.bullets.length * 25, 420);
    case 'two_column': {
      const side = (content: PlanColumn) => content.heading.length + content.bullets.join('').length + content.bullets.length * 20;
      return fit(Math.max(side(slide.left), side(slide.right)), 220);
    }
    case 'quote':
      return fit(slide.text.length, 180);
    default:
      return fit(slide.title.length + slide.subtitle.length, 120);
  }
}

function fit(characters: number, budget: number, largest = 1): number {
  return Math.round(Math.min(largest, Math.max(0.55, Math.sqrt(budget / Math.max(characters, 1)))) * 100) / 100;
}

function distinctSizes(sizes: readonly PageSize[]): PageSize[] {
  const found: PageSize[] = [];
  for (const size of sizes) if (!found.some((known) => sameSize(known, size))) found.push(size);
  return found;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
