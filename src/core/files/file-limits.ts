/** Uploaded files: at most 100 MB each (spec Limits; MB meaning MiB, as elsewhere on the platform). */
export const maxFileBytes = 100 * 1024 * 1024;

/** Files one key may keep at once (spec Limits); the next upload is refused until one is deleted. */
export const maxFilesPerKey = 100;

/** Uploaded files are deleted this many days after their upload (spec Limits). */
export const fileRetentionDays = 180;

/**
 * Blob keys of uploaded files start with this. The generated-media sweeper (shorter retention)
 * leaves these keys alone: uploaded files follow their own 180-day retention.
 */
export const fileBlobPrefix = 'files/';
