/**
 * A dependency's failure as an unauthenticated caller of /readyz may read it: the reason without
 * the addresses in it (a database or store host, its IP and port, a URL), which say where the
 * platform's internal services live. The full text goes to the log. An `hf://` model file URI
 * stays: it names a file on the public hub, not a place of this platform, and says what a model
 * is waiting for (its download).
 */
export function publicReason(detail: string): string {
  return detail
    .replace(/\b(?!hf:\/\/)[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .replace(/\[[0-9a-f:.]+\](?::\d+)?/gi, '<address>')
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, '<address>')
    .replace(/\b(ENOTFOUND|EAI_AGAIN)\s+\S+/g, '$1 <host>')
    .replace(/\b[a-z0-9-]+(?:\.[a-z0-9-]+)*:\d{2,5}\b/gi, '<address>');
}
