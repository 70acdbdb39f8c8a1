/**
 * The `data` of each server-sent event of a byte stream (an upstream engine's answer), in order.
 * Lenient like browsers: CR, LF and CRLF line ends, comments and other fields ignored, several
 * `data:` lines of one event joined by newlines; an event left without its blank line when the
 * stream ends is still delivered. Stopping the iteration early cancels the byte stream.
 */
export async function* readSseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const lineBreak = /\r\n|\r|\n/g;
  let buffer = '';
  let data: string[] = [];
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    // Walk the lines with an index and cut the buffer once per read, not once per line.
    let position = 0;
    lineBreak.lastIndex = 0;
    for (let match = lineBreak.exec(buffer); match !== null; match = lineBreak.exec(buffer)) {
      // A CR at the very end may be the first half of a CRLF still on its way.
      if (match[0] === '\r' && match.index === buffer.length - 1) break;
      const line = buffer.slice(position, match.index);
      position = lineBreak.lastIndex;
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else {
        const value = dataValue(line);
        if (value !== undefined) data.push(value);
      }
    }
    buffer = buffer.slice(position);
  }
  buffer += decoder.decode();
  const value = dataValue(buffer.replace(/\r$/, ''));
  if (value !== undefined) data.push(value);
  if (data.length > 0) yield data.join('\n');
}

function dataValue(line: string): string | undefined {
  if (line === 'data') return '';
  if (!line.startsWith('data:')) return undefined;
  const value = line.slice('data:'.length);
  return value.startsWith(' ') ? value.slice(1) : value;
}
