import { contentFilterRoles, type ContentFilterVerdict } from '../../core/errors/content-filter.ts';
import { asArray, asRecord, asString } from '../engine-http/wire-reading.ts';

/** More verdicts than the three roles is never meaningful; the rest of a long list is not read. */
const maxVerdicts = 8;

const roles: readonly string[] = contentFilterRoles;

/**
 * The upstream platform's `content_filter` / `contentFilter` verdicts, leniently: items with an
 * unknown role or a level that is not an integer from 0 to 3 are skipped; undefined when none is left.
 */
export function readContentFilter(value: unknown): ContentFilterVerdict[] | undefined {
  const verdicts: ContentFilterVerdict[] = [];
  for (const item of asArray(value).slice(0, maxVerdicts)) {
    const role = asString(asRecord(item)?.['role']);
    const level = asRecord(item)?.['level'];
    if (role !== undefined && roles.includes(role) && typeof level === 'number' && Number.isInteger(level) && level >= 0 && level <= 3) {
      verdicts.push({ role: role as ContentFilterVerdict['role'], level });
    }
  }
  return verdicts.length > 0 ? verdicts : undefined;
}
