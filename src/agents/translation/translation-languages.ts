/**
 * The language codes of the translation agent (docs/wire.md §1.6) and
 * how prompts name them: models follow "Translate into Traditional Chinese" far better than
 * "into zh-TW", and codes such as `wyw` or `yue` mean nothing to most of them.
 */

/** Source language codes, in the platform's documented order; `auto` asks the model to detect the language. */
export const sourceLanguageCodes = [
  'auto',
  'zh-CN',
  'zh-TW',
  'wyw',
  'yue',
  'en',
  'ja',
  'ko',
  'fr',
  'de',
  'es',
  'ru',
  'pt',
  'it',
  'ar',
  'hi',
  'bg',
  'cs',
  'da',
  'el',
  'et',
  'fi',
  'hu',
  'id',
  'lt',
  'lv',
  'nl',
  'no',
  'pl',
  'ro',
  'sk',
  'sl',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'my',
  'ms',
  'Pinyin',
  'IPA',
] as const;

/** Target language codes: the source list without `auto`, plus en-GB and en-US. */
export const targetLanguageCodes = [...sourceLanguageCodes.filter((code) => code !== 'auto'), 'en-GB', 'en-US'] as const;

export type SourceLanguageCode = (typeof sourceLanguageCodes)[number];
export type TargetLanguageCode = Exclude<SourceLanguageCode, 'auto'> | 'en-GB' | 'en-US';
export type LanguageCode = Exclude<SourceLanguageCode | TargetLanguageCode, 'auto'>;

/** English names for prompts; the compiler refuses a code without one. */
export const languageNames = {
  'zh-CN': 'Simplified Chinese',
  'zh-TW': 'Traditional Chinese',
  wyw: 'Classical Chinese (文言文)',
  yue: 'Cantonese (粤语, written colloquial Cantonese)',
  en: 'English',
  'en-GB': 'British English',
  'en-US': 'American English',
  ja: 'Japanese',
  ko: 'Korean',
  fr: 'French',
  de: 'German',
  es: 'Spanish',
  ru: 'Russian',
  pt: 'Portuguese',
  it: 'Italian',
  ar: 'Arabic',
  hi: 'Hindi',
  bg: 'Bulgarian',
  cs: 'Czech',
  da: 'Danish',
  el: 'Greek',
  et: 'Estonian',
  fi: 'Finnish',
  hu: 'Hungarian',
  id: 'Indonesian',
  lt: 'Lithuanian',
  lv: 'Latvian',
  nl: 'Dutch',
  no: 'Norwegian',
  pl: 'Polish',
  ro: 'Romanian',
  sk: 'Slovak',
  sl: 'Slovenian',
  sv: 'Swedish',
  th: 'Thai',
  tr: 'Turkish',
  uk: 'Ukrainian',
  vi: 'Vietnamese',
  my: 'Burmese',
  ms: 'Malay',
  Pinyin: 'Hanyu Pinyin (romanized Mandarin Chinese)',
  IPA: 'the International Phonetic Alphabet (IPA)',
} as const satisfies Record<LanguageCode, string>;

/**
 * Pinyin and IPA are writing systems, not languages: as a target they ask for a transcription of
 * the pronunciation, which the prompt must say, or models answer with a translation instead.
 */
const targetNotes: Partial<Record<LanguageCode, string>> = {
  Pinyin:
    'Write the Mandarin Chinese rendering of the text in Hanyu Pinyin with tone marks (translate it into Chinese first if it is not Chinese); output only the Pinyin.',
  IPA: 'Write the pronunciation of the text as an IPA transcription (of the text as it is, in its own language); output only the transcription.',
};

/** How a prompt names the language of the text. */
export function sourceLanguageName(code: SourceLanguageCode): string {
  return code === 'auto' ? 'the language it is written in (detect it)' : languageNames[code];
}

export function targetLanguageName(code: TargetLanguageCode): string {
  return languageNames[code];
}

/** An extra instruction for targets that are transcriptions; undefined for ordinary languages. */
export function targetLanguageNote(code: TargetLanguageCode): string | undefined {
  return targetNotes[code];
}

export function isSourceLanguage(value: unknown): value is SourceLanguageCode {
  return typeof value === 'string' && (sourceLanguageCodes as readonly string[]).includes(value);
}

export function isTargetLanguage(value: unknown): value is TargetLanguageCode {
  return typeof value === 'string' && (targetLanguageCodes as readonly string[]).includes(value);
}
