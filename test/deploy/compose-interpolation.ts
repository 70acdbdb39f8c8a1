/**
 * Docker Compose's variable interpolation, as the compose file uses it: `${NAME}`,
 * `${NAME:-default}` / `${NAME-default}`, `${NAME:?message}` / `${NAME?message}` and `$$` for a
 * literal dollar. Applied to every string value, never to keys, as Compose does.
 */
export function interpolateCompose(value: unknown, environment: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return interpolateText(value, environment);
  if (Array.isArray(value)) return value.map((item) => interpolateCompose(item, environment));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateCompose(item, environment)]));
  }
  return value;
}

function interpolateText(text: string, environment: Readonly<Record<string, string>>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (match, braced?: string, colon?: string, operator?: string, argument?: string, bare?: string) => {
      if (match === '$$') return '$';
      const name = braced ?? bare ?? '';
      const value = environment[name];
      // With the colon, an empty value counts as unset.
      const missing = value === undefined || (colon === ':' && value === '');
      if (operator === '-') return missing ? (argument ?? '') : (value ?? '');
      if (operator === '?') {
        if (missing) throw new Error(`required variable ${name} is missing a value: ${argument ?? ''}`);
        return value ?? '';
      }
      return value ?? '';
    },
  );
}

/** A Compose `.env` file: KEY=VALUE lines, comments and blank lines ignored. */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match !== null) values[match[1] as string] = (match[2] as string).trim();
  }
  return values;
}
