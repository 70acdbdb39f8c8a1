/** A file of a Hugging Face repository at a revision: `hf://<owner>/<repo>/<file>[@<revision>]`. */
export interface HfFileReference {
  readonly owner: string;
  readonly repo: string;
  /** Path inside the repository, `/`-separated. */
  readonly file: string;
  /** Branch, tag or commit; `main` when the URI names none. */
  readonly revision: string;
  /** The URI written back in its full form (with its revision). */
  readonly uri: string;
}

const hfScheme = 'hf://';
/** Names the hub allows for owners and repositories; anything else cannot be on it (and must not reach a path). */
const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;
const revisionPattern = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;
const fileSegmentPattern = /^[A-Za-z0-9_][A-Za-z0-9._ +-]{0,254}$/;

export function isHfUri(text: string): boolean {
  return text.startsWith(hfScheme);
}

/**
 * Reads an hf:// URI; throws an Error naming the URI and the form it must have. The parts become
 * folders under the models directory, so `..`, empty segments and odd characters are refused.
 */
export function parseHfUri(text: string): HfFileReference {
  const refuse = (why: string) =>
    new Error(
      `'${text}' is not a Hugging Face file URI (${why}); the form is hf://<owner>/<repo>/<file>[@<revision>], e.g. hf://THUDM/glm-edge-1.5b-chat-gguf/ggml-model-Q4_K_M.gguf`,
    );
  if (!isHfUri(text)) throw refuse('it does not begin with hf://');
  const body = text.slice(hfScheme.length);
  const at = body.lastIndexOf('@');
  const path = at === -1 ? body : body.slice(0, at);
  const revision = at === -1 ? 'main' : body.slice(at + 1);
  const [owner, repo, ...fileSegments] = path.split('/');
  if (owner === undefined || repo === undefined || !namePattern.test(owner) || !namePattern.test(repo)) throw refuse('no valid owner and repository');
  if (fileSegments.length === 0 || !fileSegments.every((segment) => fileSegmentPattern.test(segment) && segment !== '..' && segment !== '.')) {
    throw refuse('no valid file path');
  }
  if (!revisionPattern.test(revision) || revision.split('/').some((segment) => segment === '..' || segment === '')) throw refuse('no valid revision');
  const file = fileSegments.join('/');
  return { owner, repo, file, revision, uri: `${hfScheme}${owner}/${repo}/${file}@${revision}` };
}

/** The hub's URL of the file: `<endpoint>/<owner>/<repo>/resolve/<revision>/<file>`. */
export function hubFileUrl(endpoint: string, reference: HfFileReference): string {
  const encodedFile = reference.file.split('/').map(encodeURIComponent).join('/');
  return `${endpoint.replace(/\/+$/, '')}/${reference.owner}/${reference.repo}/resolve/${encodeURIComponent(reference.revision)}/${encodedFile}`;
}
