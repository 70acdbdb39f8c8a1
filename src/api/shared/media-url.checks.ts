import { invalidField } from '../../core/errors/api-error.ts';
import { parseInlineData } from '../../core/media/inline-data.ts';
import { readHttpUrl } from '../../tools/fetch/http-url.ts';

/** Most bytes of one media part given inline, as for one given by URL (the chat body itself is capped at 32 MB). */
const maxInlineMediaBytes = 20 * 1024 * 1024;

const mediaUrlForms = "an http(s) URL, a 'data:<type>;base64,' URL, or base64 content";
/** `type/subtype` as RFC 2045 tokens spell them (so nothing but a media type sits before `;base64,`). */
const mediaType = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;

/**
 * The one gate a media part's URL passes before it can reach an engine. An engine fetches what
 * it is given from inside the operator's network, so it is given only what the platform has
 * vetted: an http(s) URL whose text is already clean (the platform then fetches it through the
 * SSRF guard and sends the bytes inline), a well-formed base64 data URL, or bare base64 (which
 * the Python SDK sends and the platform turns into a data URL). Everything else (`file:`,
 * `gopher:`, `//host`, URLs with stray spaces, control characters, backslashes or credentials)
 * is refused here with 1214 naming the field.
 */
export function checkMediaUrl(url: string, field: string): void {
  if (/^https?:/i.test(url)) {
    const reading = readHttpUrl(url);
    if (reading.problem !== undefined) throw invalidField(field, `${reading.problem}; it must be ${mediaUrlForms}`);
    return;
  }
  if (/^data:/i.test(url)) {
    const declared = /^data:([^;,]*)[;,]/i.exec(url)?.[1] ?? '';
    if (!/^data:[^,]*;base64,/i.test(url) || (declared !== '' && !mediaType.test(declared))) {
      throw invalidField(field, "must be a base64 data URL ('data:<type>;base64,...')");
    }
    checkInline(url, field, 'is not valid base64 after ;base64,');
    return;
  }
  // Protocol-relative `//host` is a URL to every other parser; base64 of an image never starts so.
  if (url.startsWith('//')) throw invalidField(field, `is a protocol-relative URL; it must be ${mediaUrlForms}`);
  checkInline(url, field, `must be ${mediaUrlForms}`);
}

/** input_audio: bare base64 of the audio and a format word (it becomes `data:audio/<format>;base64,`). */
export function checkInputAudio(audio: { readonly data: string; readonly format: string }, field: string): void {
  if (!/^[a-z0-9]{1,16}$/i.test(audio.format)) throw invalidField(`${field}.format`, "must be an audio format name such as 'wav' or 'mp3'");
  checkInline(audio.data, `${field}.data`, 'must be base64 audio data');
}

function checkInline(text: string, field: string, rule: string): void {
  const inline = parseInlineData(text);
  if (inline === undefined || inline.base64 === '') throw invalidField(field, rule);
  if (inline.decodedBytes > maxInlineMediaBytes) {
    throw invalidField(field, `holds ${inline.decodedBytes} bytes; at most ${maxInlineMediaBytes} bytes (20 MB) are allowed`);
  }
}
