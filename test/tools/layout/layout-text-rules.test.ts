import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headingLevels, isFormulaText } from '../../../src/tools/layout/block-labels.ts';
import { joinLineTexts } from '../../../src/tools/layout/join-line-texts.ts';

describe('joinLineTexts', () => {
  it('joins lines with a space, CJK without one, and mends a hyphenated word', () => {
    assert.equal(joinLineTexts(['Hello', 'world']), 'Hello world');
    assert.equal(joinLineTexts(['文字识别', '与版面分析。']), '文字识别与版面分析。');
    assert.equal(joinLineTexts(['中文', 'English']), '中文 English');
    assert.equal(joinLineTexts(['inter-', 'national']), 'international');
    assert.equal(joinLineTexts(['Jean-', 'Paul']), 'Jean- Paul');
    assert.equal(joinLineTexts([' ', 'alone ']), 'alone');
  });
});

describe('isFormulaText', () => {
  it('tells mathematics from prose', () => {
    for (const formula of ['E = mc^2', 'f(x) = sin(x) + cos(x)', '∑ a_i ≤ ∫ f(t) dt', 'α + β = γ']) assert.equal(isFormulaText(formula), true, formula);
    for (const prose of ['Page 3 - 4', 'C++ programming', 'The total = 5 apples today', '2024', '价格 = 5 元'])
      assert.equal(isFormulaText(prose), false, prose);
  });
});

describe('headingLevels', () => {
  it('numbers heading sizes from the largest and leaves body-sized and long blocks alone', () => {
    const block = (lineHeight: number, rowCount = 1) => ({ lineHeight, rowCount, text: 'Heading' });
    assert.deepEqual(headingLevels([block(40), block(20), block(30), block(41), block(28), block(40, 5)], 20), [1, undefined, 2, 1, 2, undefined]);
    assert.deepEqual(headingLevels([block(24)], 20), [undefined]);
  });
});
