/** Uploaded files: at most 100 MB each (the platform's limit; MB meaning MiB, as elsewhere on the platform). */
export const maxFileBytes = 100 * 1024 * 1024;

/** Files one key may keep at once (the platform's limit); the next upload is refused until one is deleted. */
export const maxFilesPerKey = 100;

/** Uploaded files are deleted this many days after their upload (the platform's retention). */
export const fileRetentionDays = 180;

/**
 * Blob keys of uploaded files start with this. The generated-media sweeper (shorter retention)
 * leaves these keys alone: uploaded files follow their own 180-day retention.
 */
export const fileBlobPrefix = 'files/';

/**
 * How long a pending upload may take before the sweep takes it for abandoned (its process died):
 * far more than reading and indexing one file takes (a reader's wait and time limit, OCR of a scan).
 */
export const abandonedUploadMs = 3_600_000;
