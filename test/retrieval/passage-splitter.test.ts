import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitPassages } from '../../src/core/knowledge/passage-splitter.ts';

describe('splitPassages', () => {
  it('packs whole sentences up to the size, keeping lines apart', () => {
    const text = '# Title\n\nThe first sentence is here. The second "one" follows! And a third?\nA line.\n\n中文句子。第二句。';
    assert.deepEqual(splitPassages(text, 40), [
      '# Title\nThe first sentence is here.',
      'The second "one" follows! And a third?',
      'A line.\n中文句子。 第二句。',
    ]);
  });

  it('cuts a sentence longer than the size at spaces, or anywhere in text without them', () => {
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
    const passages = splitPassages(words, 20);
    assert.ok(passages.every((passage) => passage.length <= 20));
    assert.equal(passages.join(' '), words);
    assert.deepEqual(splitPassages('x'.repeat(45), 20), ['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]);
  });

  it('gives nothing for blank text and keeps every character of the words', () => {
    assert.deepEqual(splitPassages(' \n\t\r\n ', 100), []);
    const text = Array.from({ length: 200 }, (_, index) => `Sentence ${index} ends here.`).join(' ');
    const passages = splitPassages(text, 300);
    assert.ok(passages.every((passage) => passage.length <= 300));
    assert.ok(
      passages.slice(0, -1).every((passage) => passage.length > 270),
      'each passage but the last is filled near the size',
    );
    assert.equal(passages.join(' '), text);
  });
});
