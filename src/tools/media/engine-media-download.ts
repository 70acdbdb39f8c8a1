import { ApiError } from '../../core/errors/api-error.ts';
import { GuardedFetcher } from '../fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../fetch/ssrf-guard.ts';

const userAgent = 'model-platform (engine media download)';
/** The deadline of one download; the generation's own deadline still applies through the signal. */
const downloadTimeoutMs = 300_000;

/** Most bytes of one download: an image of 4096x4096 as PNG is about 50 MB; a 10 s 4K video a few hundred. */
export const maxEngineImageBytes = 64 * 1024 * 1024;
export const maxEngineVideoBytes = 1024 * 1024 * 1024;

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
 * by the fetcher hop by hop, each judged by the same rule.
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
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new ApiError('500', `${said}, which is not an http(s) URL.`);
    let fetched;
    try {
      fetched = await this.#fetcher.fetch(url, { timeoutMs: downloadTimeoutMs, signal, maxBytes, headers: { accept: '*/*' } });
    } catch (error) {
      if (signal.aborted || !(error instanceof ApiError)) throw error;
      const detail = error.message.replace(/^Invalid parameter 'url': /, '');
      throw new ApiError(error.code === '1234' ? '1234' : '500', `${said}, which the server could not download: ${detail}`);
    }
    if (fetched.status < 200 || fetched.status > 299) throw new ApiError('500', `${said}, which answered HTTP ${fetched.status}.`);
    return { bytes: fetched.body, declaredType: fetched.contentType.mediaType };
  }

  async close(): Promise<void> {
    await this.#fetcher.close();
  }
}
