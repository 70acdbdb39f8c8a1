/** The request as a curl command line, for the shell; the key is left as a placeholder so a screenshot never shows it. */
export function curlCommand(path: string, body: object): string {
  const json = JSON.stringify(body, null, 2).replaceAll("'", "'\\''");
  return [
    `curl ${window.location.origin}${path} \\`,
    `  -H "Authorization: Bearer $MODEL_PLATFORM_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${json}'`,
  ].join('\n');
}
