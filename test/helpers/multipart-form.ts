import type { TestPlatform } from './test-platform.ts';

/** A form entry: a text field, or a file part with its name (and content type). */
export type FormEntry = readonly [name: string, value: string] | readonly [name: string, value: Uint8Array, filename: string, type?: string];

/** A real multipart body, encoded by the platform's own FormData (boundary in the content type). */
export async function encodeForm(entries: readonly FormEntry[]): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value, filename, type] of entries) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value], type === undefined ? {} : { type }), filename);
  }
  const encoded = new Response(form);
  return { payload: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? '' };
}

/** POSTs the form with the test key. */
export async function postForm(test: TestPlatform, path: string, entries: readonly FormEntry[]) {
  const { payload, contentType } = await encodeForm(entries);
  return test.app.inject({ method: 'POST', url: path, headers: { authorization: test.authorization, 'content-type': contentType }, payload });
}
