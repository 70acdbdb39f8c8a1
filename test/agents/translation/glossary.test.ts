import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Agent } from '../../../src/agents/agent.ts';
import { containsTerm, matchingTerms, maxGlossaryBytes, missingTargets, parseGlossary } from '../../../src/agents/translation/glossary.ts';
import type { ModelBackends } from '../../../src/core/backends/model-backends.ts';
import { assertApiError, rejection } from '../../helpers/api-error-assertions.ts';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../helpers/fake-openai-server.ts';
import { answer, MemoryFileStore, owner, promptOf, runToEnd, translationAgent, translationInput, userPromptOf } from './translation-fixtures.ts';

const terms = (text: string) => parseGlossary(Buffer.from(text));

describe('glossary files', () => {
  it('reads CSV with a header row, quoted fields (commas, quotes, newlines) and extra columns', () => {
    const csv = 'source,target,note\r\nlarge language model,大语言模型,ML\r\n"Smith, John","约翰·史密斯"\r\n"the ""cloud""",云端\r\n\r\n"multi\nline",多行\n';
    assert.deepEqual(terms(csv), [
      { source: 'large language model', target: '大语言模型' },
      { source: 'Smith, John', target: '约翰·史密斯' },
      { source: 'the "cloud"', target: '云端' },
      { source: 'multi\nline', target: '多行' },
    ]);
  });

  it('reads TSV (a tab in the first row), Chinese headers, a UTF-8 BOM and UTF-16 exports', () => {
    assert.deepEqual(terms('原文\t译文\nkernel\t内核\nA, B\t甲，乙\n'), [
      { source: 'kernel', target: '内核' },
      { source: 'A, B', target: '甲，乙' },
    ]);
    assert.deepEqual(terms('\uFEFFGPU,图形处理器\n'), [{ source: 'GPU', target: '图形处理器' }]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('source\ttarget\r\ncache\t缓存\r\n', 'utf16le')]);
    assert.deepEqual(parseGlossary(utf16), [{ source: 'cache', target: '缓存' }]);
  });

  it('keeps a first row that is a term, not a header', () => {
    assert.deepEqual(terms('source code,源代码\n'), [{ source: 'source code', target: '源代码' }]);
  });

  it('refuses, naming custom_variables.glossary: a row without a target, no rows at all, a file over the size cap', () => {
    assertApiError(
      captured(() => terms('kernel,内核\ncache\n')),
      '1214',
      'custom_variables.glossary',
      'row 2',
    );
    assertApiError(
      captured(() => terms('source,target\n\n')),
      '1214',
      'custom_variables.glossary',
      'no',
    );
    assertApiError(
      captured(() => parseGlossary(Buffer.alloc(maxGlossaryBytes + 1, 'a'))),
      '1214',
      'custom_variables.glossary',
      String(maxGlossaryBytes),
    );
  });

  it('matches source terms as words in spaced scripts and anywhere in unspaced ones, ignoring case', () => {
    assert.equal(containsTerm('He said no.', 'AI'), false, '"AI" is not in "said"');
    assert.equal(containsTerm('Open AI models', 'ai'), true);
    assert.equal(containsTerm('I use Large Language Models daily.', 'large language model'), false, 'a word must end where the term ends');
    assert.equal(containsTerm('我们使用大语言模型。', '大语言模型'), true);
    assert.equal(containsTerm('東京タワーへ行く', 'タワー'), true);
    const glossary = terms('model,模型\nlanguage model,语言模型\nModel,模特\nbird,鸟\n');
    assert.deepEqual(matchingTerms(glossary, 'A language model.'), [
      { source: 'language model', target: '语言模型' },
      { source: 'model', target: '模型' },
    ]);
    assert.deepEqual(missingTargets(glossary.slice(0, 2), '一个模型。'), [{ source: 'language model', target: '语言模型' }]);
  });
});

describe('glossary in the translation agent', () => {
  let engine: FakeOpenAiServer;
  let backends: ModelBackends;
  let agent: Agent;
  const files = new MemoryFileStore();
  before(async () => {
    engine = await startFakeOpenAiServer();
    ({ agent, backends } = translationAgent(engine, files));
    files.put(owner, 'glossary-1', 'source,target\nearly bird,早鸟\nworm,虫子\nunused term,不该出现\n');
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await backends.close();
    await engine.close();
  });

  const text = 'The early bird catches the worm.';

  it('puts the matching terms (only those) into every prompt as mandatory terminology', async () => {
    engine.enqueue(answer('LITERAL 早鸟 虫子'), answer('CRITIQUE'), answer('早鸟捉到虫子。'));
    const run = await runToEnd(agent, translationInput(text, { source_lang: 'en', strategy: 'three_step', glossary: 'glossary-1' }));
    assert.equal(engine.requests.length, 3);
    for (const request of engine.requests) {
      const prompt = promptOf(request);
      assert.match(prompt, /Mandatory terminology \(glossary\)/);
      assert.match(prompt, /- "early bird" → "早鸟"/);
      assert.match(prompt, /- "worm" → "虫子"/);
      assert.doesNotMatch(prompt, /unused term|不该出现/, 'terms absent from the text stay out of the prompt');
    }
    assert.equal(engine.requests[2]?.body['stream'], false, 'the last step is checked before it is sent');
    assert.equal(run.text, '早鸟捉到虫子。');
    assert.deepEqual(run.deltas, ['早鸟捉到虫子。']);
    assert.equal(run.done.usage.calls, 3, 'no corrective call when every term is used');
  });

  it('runs one corrective call, listing the missing terms, when the output lacks one, and answers with its output', async () => {
    engine.enqueue(
      answer('早起的鸟儿有虫子吃。', { promptTokens: 20, completionTokens: 7 }),
      answer('早鸟有虫子吃。', { promptTokens: 30, completionTokens: 5 }),
    );
    const run = await runToEnd(agent, translationInput(text, { source_lang: 'en', glossary: 'glossary-1' }));
    assert.equal(engine.requests.length, 2);
    const correction = engine.requests[1];
    assert.equal(correction?.body['stream'], true);
    const prompt = userPromptOf(correction);
    assert.match(prompt, /does not use these mandatory glossary terms:\n- "early bird" must be translated as "早鸟"/);
    assert.doesNotMatch(prompt, /"worm" must be/, 'a term the output already uses is not listed');
    assert.match(prompt, /<translation>\n早起的鸟儿有虫子吃。\n<\/translation>/);
    assert.match(prompt, /<source_text>\nThe early bird catches the worm\.\n<\/source_text>/);
    assert.equal(run.text, '早鸟有虫子吃。');
    assert.deepEqual(run.done.usage, { promptTokens: 50, completionTokens: 12, calls: 2 });
  });

  it('refuses a glossary id the key does not own (1214 naming custom_variables.glossary) before calling the engine', async () => {
    files.put('another-key', 'glossary-2', 'worm,虫子\n');
    const error = await rejection(runToEnd(agent, translationInput(text, { glossary: 'glossary-2' })));
    assertApiError(error, '1214', 'custom_variables.glossary', 'glossary-2');
    assert.equal(engine.requests.length, 0);
  });
});

function captured(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return assert.fail('no error was thrown');
}
