/** A Content-Type header, split: the media type (lower case, no parameters) and its charset. */
export interface ContentType {
  /** e.g. `text/html`; "" when the header is absent or empty. */
  readonly mediaType: string;
  /** The `charset` parameter as sent, lower case; undefined when absent. */
  readonly charset: string | undefined;
}

export function parseContentType(header: string | undefined): ContentType {
  if (header === undefined) return { mediaType: '', charset: undefined };
  const [type = '', ...parameters] = header.split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const separator = parameter.indexOf('=');
    if (separator < 0) continue;
    if (parameter.slice(0, separator).trim().toLowerCase() !== 'charset') continue;
    const value = parameter
      .slice(separator + 1)
      .trim()
      .replace(/^["']|["']$/g, '')
      .toLowerCase();
    if (value !== '') charset = value;
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}
