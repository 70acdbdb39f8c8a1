import type { PlanTheme, ThemeName } from './slide-plan.ts';

interface Palette {
  readonly background: string;
  readonly text: string;
  readonly accent: string;
  readonly muted: string;
  /** Panels: columns, poster sections. */
  readonly surface: string;
}

const palettes: Readonly<Record<ThemeName, Palette>> = {
  light: { background: '#ffffff', text: '#1f2933', accent: '#2563eb', muted: '#52606d', surface: '#f1f5f9' },
  dark: { background: '#111827', text: '#f9fafb', accent: '#f59e0b', muted: '#cbd5e1', surface: '#1f2937' },
  ocean: { background: '#0b3c5d', text: '#f0f7fb', accent: '#5bc0eb', muted: '#c9e4f1', surface: '#0f4c75' },
  forest: { background: '#f4f1ea', text: '#1e3a2b', accent: '#2f855a', muted: '#4a5d50', surface: '#e6efe6' },
  sunset: { background: '#fff7ed', text: '#431407', accent: '#ea580c', muted: '#7c2d12', surface: '#ffedd5' },
};

/** The theme's colours as CSS custom properties (the accent was checked to be a hex colour). */
export function themeVariables(theme: PlanTheme): string {
  const palette = palettes[theme.name];
  return [
    `--background:${palette.background}`,
    `--text:${palette.text}`,
    `--accent:${theme.accent ?? palette.accent}`,
    `--muted:${palette.muted}`,
    `--surface:${palette.surface}`,
  ].join(';');
}

/**
 * The stylesheet of every page. Sizes are in container units (`cqmin`, `cqw`), so one template
 * fits any page size: a page override only changes the box the slide is drawn in. `--fit`
 * shrinks text on pages that carry a lot of it.
 */
export const pageStylesheet = `
* { box-sizing: border-box; margin: 0; padding: 0; }
html, body { background: #ffffff; }
body { font-family: 'DejaVu Sans', 'Liberation Sans', 'WenQuanYi Micro Hei', sans-serif; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.page { position: relative; overflow: hidden; container-type: size; background: var(--background); color: var(--text); break-after: page; }
.page:last-child { break-after: auto; }
.screen .page { width: 100vw; height: 100vh; }
.inner { position: absolute; inset: 7cqmin 8cqmin; display: flex; flex-direction: column; gap: 3cqmin; }
h1 { font-size: calc(9cqmin * var(--fit)); line-height: 1.15; font-weight: 700; }
h2 { font-size: calc(6.5cqmin * var(--fit)); line-height: 1.2; font-weight: 700; }
h3 { font-size: calc(4.4cqmin * var(--fit)); line-height: 1.25; font-weight: 700; color: var(--accent); }
p, li { font-size: calc(4cqmin * var(--fit)); line-height: 1.4; }
.subtitle { font-size: calc(4.6cqmin * var(--fit)); color: var(--muted); }
.bar { width: 14cqmin; height: 1.2cqmin; background: var(--accent); border-radius: 0.6cqmin; }
ul { list-style: none; display: flex; flex-direction: column; gap: calc(2cqmin * var(--fit)); }
li { position: relative; padding-left: 4cqmin; }
li::before { content: ''; position: absolute; left: 0; top: 0.55em; width: 1.6cqmin; height: 1.6cqmin; border-radius: 50%; background: var(--accent); }
.title .inner { justify-content: center; align-items: center; text-align: center; }
.section .inner { justify-content: center; }
.section { border-left: 3cqmin solid var(--accent); }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 4cqmin; flex: 1; min-height: 0; }
.column { background: var(--surface); border-radius: 2cqmin; padding: 3.5cqmin; display: flex; flex-direction: column; gap: 2.5cqmin; }
.quote .inner { justify-content: center; padding: 0 6cqmin; }
blockquote { font-size: calc(6cqmin * var(--fit)); line-height: 1.35; font-style: italic; border-left: 1.2cqmin solid var(--accent); padding-left: 4cqmin; }
.attribution { font-size: 3.8cqmin; color: var(--muted); text-align: right; }
.number { position: absolute; right: 4cqmin; bottom: 3cqmin; font-size: 2.6cqmin; color: var(--muted); }
.poster .inner { inset: 6cqw 6cqw; gap: 2.5cqw; }
.poster h1 { font-size: calc(7cqw * var(--fit)); }
.poster .subtitle { font-size: calc(3.4cqw * var(--fit)); }
.poster .bar { width: 14cqw; height: 1cqw; }
.sections { display: grid; grid-template-columns: repeat(var(--section-columns), 1fr); gap: 3cqw; flex: 1; min-height: 0; align-content: start; }
.poster .column { border-radius: 1.6cqw; padding: 3cqw; gap: 1.6cqw; }
.poster h3 { font-size: calc(3.6cqw * var(--fit)); }
.poster p, .poster li { font-size: calc(2.6cqw * var(--fit)); }
.poster li { padding-left: 3cqw; }
.poster li::before { width: 1.2cqw; height: 1.2cqw; }
.footer { font-size: 2.2cqw; color: var(--muted); }
`;
