import type { BackendResources } from './backend.ts';

/** Says, once per load, what an in-process engine did (which model loaded, on which device). */
export type Announcer = (fields: Readonly<Record<string, unknown>>, message: string) => void;

/** The platform's announcer, read only when one exists (tests give resources that refuse every read); otherwise said nowhere. */
export function announcerOf(resources: BackendResources): Announcer {
  return 'announce' in resources && resources.announce !== undefined ? resources.announce : () => undefined;
}
