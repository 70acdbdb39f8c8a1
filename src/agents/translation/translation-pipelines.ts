import type { ChatMessage } from '../../core/chat/chat-types.ts';
import { direction, onlyTranslation, sourceName, systemMessage, tagged, targetName, userMessage, type TranslationTask } from './translation-prompts.ts';
import type { TranslationStrategy } from './translation-settings.ts';

/** The outputs of the steps run so far, by step name. */
type StepOutputs = Readonly<Record<string, string>>;

/** One engine call of a pipeline: its prompt is built from the task and the earlier outputs. */
export interface PipelineStep {
  /** Names the output for later steps. */
  readonly name: string;
  /** Low for faithful steps, higher for free rendering. */
  readonly temperature: number;
  prompt(task: TranslationTask, earlier: StepOutputs): readonly ChatMessage[];
}

/** The output of an earlier step; the table below only refers to steps that come before. */
function output(earlier: StepOutputs, name: string): string {
  const text = earlier[name];
  if (text === undefined) throw new Error(`translation pipeline: step '${name}' has not run`);
  return text;
}

const translator = 'a professional translator';

const general: PipelineStep = {
  name: 'translation',
  temperature: 0.3,
  prompt: (task) => {
    const suggestion = task.settings.suggestion;
    return [
      systemMessage(task, translator),
      userMessage(
        `Translate the text ${direction(task)}: accurate, complete and natural.`,
        ...(suggestion === undefined ? [] : [`Follow the user's suggestion on how to translate it: ${suggestion}`]),
        tagged('source_text', task.text),
        onlyTranslation,
      ),
    ];
  },
};

const paraphrase: PipelineStep = {
  name: 'translation',
  temperature: 0.7,
  prompt: (task) => [
    systemMessage(task, 'a translator and native writer'),
    userMessage(
      `Render the text freely ${direction(task)}: convey all of its meaning and tone as a native ${targetName(task)} writer would put it, ` +
        'restructuring sentences and replacing idioms with natural equivalents rather than translating word for word.',
      tagged('source_text', task.text),
      onlyTranslation,
    ),
  ],
};

const literal: PipelineStep = {
  name: 'literal',
  temperature: 0.1,
  prompt: (task) => [
    systemMessage(task, translator),
    userMessage(
      `Translate the text ${direction(task)} literally: as close to word for word as ${targetName(task)} grammar allows, ` +
        'keeping the structure of the source and every detail, even where the result reads awkwardly.',
      tagged('source_text', task.text),
      'Output only the literal translation.',
    ),
  ],
};

/** two_step's second call: the literal translation made fluent. */
const refineLiteral: PipelineStep = {
  name: 'translation',
  temperature: 0.3,
  prompt: (task, earlier) => [
    systemMessage(task, translator),
    userMessage(
      `Below are a text and a literal translation of it into ${targetName(task)}. Rewrite the literal translation into fluent, natural ` +
        `${targetName(task)} that keeps the full meaning of the source.`,
      tagged('source_text', task.text),
      tagged('literal_translation', output(earlier, 'literal')),
      onlyTranslation,
    ),
  ],
};

const critique: PipelineStep = {
  name: 'critique',
  temperature: 0.3,
  prompt: (task, earlier) => [
    systemMessage(task, 'a senior translation reviewer'),
    userMessage(
      `Review the literal translation into ${targetName(task)} against the source. List, as numbered points, every problem you find: ` +
        'mistranslations, omissions or additions, unnatural or ungrammatical wording, wrong register or style, and glossary terms not ' +
        'used as required. Give a concrete fix for each.',
      tagged('source_text', task.text),
      tagged('literal_translation', output(earlier, 'literal')),
      'Output only the numbered review; do not write the corrected translation.',
    ),
  ],
};

/** three_step's last call: the literal translation, fixed by the critique. */
const refineWithCritique: PipelineStep = {
  name: 'translation',
  temperature: 0.3,
  prompt: (task, earlier) => [
    systemMessage(task, translator),
    userMessage(
      `Write the final ${targetName(task)} translation of the text: start from the literal translation, apply every fix of the review, ` +
        'and make it read naturally while keeping the full meaning of the source.',
      tagged('source_text', task.text),
      tagged('literal_translation', output(earlier, 'literal')),
      tagged('review', output(earlier, 'critique')),
      onlyTranslation,
    ),
  ],
};

const firstDraft: PipelineStep = {
  name: 'draft',
  temperature: 0.3,
  prompt: (task) => [
    systemMessage(task, translator),
    userMessage(`Translate the text ${direction(task)}: accurate, complete and natural.`, tagged('source_text', task.text), onlyTranslation),
  ],
};

const reflect: PipelineStep = {
  name: 'reflection',
  temperature: 0.3,
  prompt: (task, earlier) => [
    systemMessage(task, 'an expert linguist reviewing a translation'),
    userMessage(
      `Read the source text and its translation into ${targetName(task)}, then reflect on how to improve the translation. ` +
        'Write constructive, specific suggestions on accuracy (errors, omissions, additions), fluency, style and tone, and ' +
        'terminology (including the glossary).',
      tagged('source_text', task.text),
      tagged('translation', output(earlier, 'draft')),
      'Output only the list of suggestions; do not rewrite the translation.',
    ),
  ],
};

const improve: PipelineStep = {
  name: 'translation',
  temperature: 0.3,
  prompt: (task, earlier) => [
    systemMessage(task, translator),
    userMessage(
      `Improve the translation into ${targetName(task)}, taking every expert suggestion into account where it makes the translation better.`,
      tagged('source_text', task.text),
      tagged('translation', output(earlier, 'draft')),
      tagged('suggestions', output(earlier, 'reflection')),
      'Output only the improved translation: no preface, no notes.',
    ),
  ],
};

/** reason_lang `from` reasons in the language of the text, `to` in the target language. */
function reasoningLanguage(task: TranslationTask): string {
  if (task.settings.reasonLang === 'to') return targetName(task);
  return task.settings.sourceLang === 'auto' ? 'the language of the source text' : sourceName(task);
}

const reason: PipelineStep = {
  name: 'reasoning',
  temperature: 0.3,
  prompt: (task) => [
    systemMessage(task, translator),
    userMessage(
      `Before translating the text ${direction(task)}, think it through step by step: what it means and in what context, its difficult ` +
        'words, idioms, names and cultural references, the terms to use, and how each should be rendered.',
      `Write this reasoning in ${reasoningLanguage(task)}.`,
      tagged('source_text', task.text),
      'Output only the reasoning; do not write the final translation yet.',
    ),
  ],
};

const translateWithReasoning: PipelineStep = {
  name: 'translation',
  temperature: 0.3,
  prompt: (task, earlier) => [
    systemMessage(task, translator),
    userMessage(
      `Using the reasoning below, translate the text ${direction(task)}.`,
      tagged('source_text', task.text),
      tagged('reasoning', output(earlier, 'reasoning')),
      onlyTranslation,
    ),
  ],
};

/** Each strategy's calls, in order; the last step's output is the answer (and the only one streamed). */
export const translationPipelines: Readonly<Record<TranslationStrategy, readonly [...PipelineStep[], PipelineStep]>> = {
  general: [general],
  paraphrase: [paraphrase],
  two_step: [literal, refineLiteral],
  three_step: [literal, critique, refineWithCritique],
  reflection: [firstDraft, reflect, improve],
  cot: [reason, translateWithReasoning],
};
