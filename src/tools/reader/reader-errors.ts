import { STATUS_CODES } from 'node:http';
import { ApiError } from '../../core/errors/api-error.ts';

/**
 * What the reader answers when a page cannot be read, each in its own words. The URL is the one
 * the client sent. Problems of the page itself are 1214 on `url` (the same request cannot
 * succeed); a server error of the page is 1234, which clients may retry.
 */

export function pageHttpError(url: string, status: number): ApiError {
  const reason = STATUS_CODES[status];
  const described = reason === undefined ? `HTTP ${status}` : `HTTP ${status} (${reason})`;
  if (status >= 500) return new ApiError('1234', `Network error: ${url} answered ${described}.`);
  return new ApiError('1214', `Invalid parameter 'url': ${url} answered ${described}.`);
}

export function notReadable(url: string, mediaType: string): ApiError {
  const kind = mediaType === '' ? 'a file of unknown type' : mediaType;
  return new ApiError('1214', `Invalid parameter 'url': ${url} is ${kind}, not an HTML page, a text file or a PDF.`);
}

export function challengePage(url: string): ApiError {
  return new ApiError('1214', `Invalid parameter 'url': ${url} answered with a bot check (a "verify you are human" page) instead of its content.`);
}

export function nothingReadable(url: string, scripted: boolean, rendering: boolean): ApiError {
  const hint =
    scripted && !rendering ? ' The page builds its content with scripts; the server renders such pages only when reader.render is enabled in its config.' : '';
  return new ApiError('1214', `Invalid parameter 'url': ${url} has no readable content.${hint}`);
}

export function nestedTooDeep(url: string, maxDepth: number): ApiError {
  return new ApiError('1214', `Invalid parameter 'url': ${url} nests its elements more than ${maxDepth} levels deep, more than the reader takes apart.`);
}

export function unreadablePdf(url: string, detail: string): ApiError {
  return new ApiError('1214', `Invalid parameter 'url': ${url} is a PDF that could not be read (${detail}).`);
}
