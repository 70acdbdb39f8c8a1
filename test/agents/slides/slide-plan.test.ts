import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolvePageSizes } from '../../../src/agents/slides/page-sizes.ts';
import { parseSlidePlan, PlanError } from '../../../src/agents/slides/slide-plan.ts';
import { planDocument } from '../../../src/agents/slides/slide-templates.ts';
import { ApiError } from '../../../src/core/errors/api-error.ts';

describe('slide plans: lenient reading', () => {
  it('reads a fenced answer with synonyms: type for layout, points for bullets, columns for left/right', () => {
    const answer = [
      'Here is the deck:',
      '```json',
      JSON.stringify({
        title: 'Deck',
        theme: { name: 'Ocean', accent: '#ff0000' },
        slides: [
          { type: 'cover', title: 'Deck', subtitle: 'Sub' },
          { type: 'content', title: 'Points', points: ['one', 2, { text: 'three' }, '  '] },
          { title: 'Compare', columns: [{ title: 'A', bullets: ['a1'] }, ['b1', 'b2']] },
          { quote: 'Be brief.', author: 'Someone' },
        ],
      }),
      '```',
    ].join('\n');
    const plan = parseSlidePlan(answer);
    assert.equal(plan.kind, 'deck');
    assert.deepEqual(plan.theme, { name: 'ocean', accent: '#ff0000' });
    if (plan.kind !== 'deck') return;
    assert.deepEqual(
      plan.slides.map((slide) => slide.layout),
      ['title', 'bullets', 'two_column', 'quote'],
    );
    assert.deepEqual(plan.slides[1]?.bullets, ['one', '2', 'three']);
    assert.deepEqual(plan.slides[2]?.left, { heading: 'A', bullets: ['a1'] });
    assert.deepEqual(plan.slides[2]?.right, { heading: '', bullets: ['b1', 'b2'] });
    assert.deepEqual([plan.slides[3]?.text, plan.slides[3]?.attribution], ['Be brief.', 'Someone']);
  });

  it('drops an accent that is not a hex colour (it is written into CSS) and an unknown theme', () => {
    const plan = parseSlidePlan(JSON.stringify({ title: 'T', theme: { name: 'neon', accent: 'red;} body{display:none' }, slides: [{ title: 'T' }] }));
    assert.deepEqual(plan.theme, { name: 'light' });
  });

  it('says what is wrong, for the model to fix', () => {
    const problems: [string, RegExp][] = [
      ['no json here', /holds no JSON object/],
      ['{"title": "x", "slides": [}', /not valid JSON/],
      ['{"title": "x", "slides": []}', /non-empty "slides" array/],
      ['{"title": "x", "slides": [{"layout": "bullets", "bullets": ["a"]}]}', /slides\[0\]\.title must be a non-empty string/],
      ['{"kind": "poster", "title": "x", "sections": [{"text": "no heading"}]}', /sections\[0\]\.heading/],
    ];
    for (const [answer, expected] of problems) {
      assert.throws(
        () => parseSlidePlan(answer),
        (error: unknown) => error instanceof PlanError && expected.test(error.message),
        answer,
      );
    }
  });

  it('escapes every text of the plan in the HTML', () => {
    const plan = parseSlidePlan(
      JSON.stringify({
        title: '<script>alert(1)</script>',
        slides: [{ layout: 'bullets', title: '<img src=x onerror=alert(1)>', bullets: ['"quoted" & <b>bold</b>'] }],
      }),
    );
    const html = planDocument(plan, [{ index: 0, size: { width: 960, height: 540 } }], 'print');
    assert.doesNotMatch(html, /<script|<img|<b>/);
    assert.match(html, /&#60;img src=x onerror=alert\(1\)&#62;/);
    assert.match(html, /&#34;quoted&#34; &#38; &#60;b&#62;bold&#60;\/b&#62;/);
    assert.match(html, /@page size0 \{ size: 960pt 540pt; margin: 0; \}/);
  });
});

describe('page sizes', () => {
  const base = [
    { width: 960, height: 540 },
    { width: 960, height: 540 },
  ];

  it('overrides the given positions; a later entry for the same position wins', () => {
    const sizes = resolvePageSizes(2, base, [
      { position: 2, width: 500, height: 500 },
      { position: 2, width: 540, height: 720 },
    ]);
    assert.deepEqual(sizes, [base[0], { width: 540, height: 720 }]);
  });

  it('refuses positions past the last page and sizes out of range (1214)', () => {
    const refused: [{ position: number; width: number; height: number }, RegExp][] = [
      [{ position: 0, width: 500, height: 500 }, /position/],
      [{ position: 3, width: 500, height: 500 }, /from 1 to 2/],
      [{ position: 1.5, width: 500, height: 500 }, /position/],
      [{ position: 1, width: 10, height: 500 }, /width.*72 to 4000/],
      [{ position: 1, width: 4000, height: 4000 }, /over 16777216 pixels/],
    ];
    for (const [override, expected] of refused) {
      assert.throws(
        () => resolvePageSizes(2, base, [override]),
        (error: unknown) => error instanceof ApiError && error.code === '1214' && expected.test(error.message),
        JSON.stringify(override),
      );
    }
  });
});
