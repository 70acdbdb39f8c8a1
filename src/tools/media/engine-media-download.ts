import { ApiError } from '../../core/errors/api-error.ts';
import { EngineFailure, type EngineFailureKind } from '../../core/errors/engine-failure.ts';
import { FetchError, type FetchFailureReason } from '../fetch/fetch-errors.ts';
import { GuardedFetcher } from '../fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../fetch/ssrf-guard.ts';

const userAgent = 'model-platform (engine media download)';
/** The deadline of one download; the generation's own deadline still applies through the signal. */
const downloadTimeoutMs = 300_000;

/** Most bytes of one download: an image of 4096x4096 as PNG is about 50 MB; a 10 s 4K video a few hundred. */
export const maxEngineImageBytes = 64 * 1024 * 1024;
export const maxEngineVideoBytes = 1024 * 1024 * 1024;

/**
 * A failed download as the engine's failure: the URL is the engine's answer, so an address the
 * platform does not fetch is a broken answer, never the client's invalid parameter.
 */
const kindOfFetchFailure = {
  'blocked-address': 'bad-answer',
  'unsupported-scheme': 'bad-answer',
  'too-many-redirects': 'bad-answer',
  'host-not-found': 'bad-answer',
  'too-large': 'too-large',
  timeout: 'timeout',
  unreachable: 'unreachable',
} as const satisfies Record<FetchFailureReason, EngineFailureKind>;

/**
 * The engine has generated the media by the time its URL is downloaded: a failed download is
 * never taken over by another deployment, which would generate (and, upstream, bill) it again.
 */
const generated = { answerStarted: true } as const;

export interface DownloadedMedia {
  readonly bytes: Uint8Array;
  /** The Content-Type the server sent (media type only), "" when none; callers check the bytes. */
  readonly declaredType: string;
}

/**
 * Downloads the media an engine answered with as a URL (an OpenAI-compatible `url`, the upstream
 * platform's result URLs). A URL on the engine's own origin (the scheme, host and port of its
 * baseUrl) is the engine serving its output and is fetched even on a private address (the
 * operator configured that engine); any other URL, another port of the engine's host included, is
 * an address the engine chose, so it goes through the SSRF guard and must be public, exactly like
 * a URL a client sends (the upstream platform's CDN links are such URLs). Redirects are followed
 * by the fetcher hop by hop, each judged by the same rule. A download that fails is the engine's
 * failure (EngineFailure), whatever the fetcher would have told a client of a URL it gave.
 */
export class EngineMediaDownload {
  readonly #modelName: string;
  readonly #fetcher: GuardedFetcher;

  constructor(modelName: string, engineBaseUrl: string) {
    this.#modelName = modelName;
    this.#fetcher = new GuardedFetcher({ guard: new SsrfGuard(), maxBytes: maxEngineVideoBytes, userAgent, trustedOrigin: new URL(engineBaseUrl).origin });
  }

  async download(url: string, maxBytes: number, signal: AbortSignal): Promise<DownloadedMedia> {
    const said = `The engine of model '${this.#modelName}' answered with the media URL ${url}`;
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new EngineFailure('bad-answer', this.#modelName, `${said}, which is not an http(s) URL.`, generated);
    }
    let fetched;
    try {
      fetched = await this.#fetcher.fetch(url, { timeoutMs: downloadTimeoutMs, signal, maxBytes, headers: { accept: '*/*' } });
    } catch (error) {
      if (signal.aborted || !(error instanceof ApiError)) throw error;
      const detail = error.message.replace(/^Invalid parameter 'url': /, '');
      // A URL the fetcher cannot even read (spaces, credentials) is as broken an answer as a private address.
      const kind = error instanceof FetchError ? kindOfFetchFailure[error.reason] : 'bad-answer';
      throw new EngineFailure(kind, this.#modelName, `${said}, which the server could not download: ${detail}`, { ...generated, cause: error });
    }
    if (fetched.status < 200 || fetched.status > 299) {
      // The engine's media server failing is the engine failing; any other status, a URL that leads nowhere.
      const kind = fetched.status >= 500 ? 'engine-error' : 'bad-answer';
      throw new EngineFailure(kind, this.#modelName, `${said}, which answered HTTP ${fetched.status}.`, { ...generated, engineStatus: fetched.status });
    }
    return { bytes: fetched.body, declaredType: fetched.contentType.mediaType };
  }

  async close(): Promise<void> {
    await this.#fetcher.close();
  }
}
