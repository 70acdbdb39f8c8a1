import type { UsageRecord } from '../usage/usage-record.ts';
import { UsageRecorder, type UsageRecorderOptions } from '../usage/usage-recorder.ts';
import type { Admission } from './admission.ts';

/**
 * The usage recorder of every completed call (routes and tasks), also feeding the record to
 * admission at once (token quotas, token prices): the ledger write stays batched off the request
 * path, while the next call of the key, on any node, already sees these tokens.
 */
export class MeteredUsageRecorder extends UsageRecorder {
  readonly #admission: Admission;

  constructor(write: (records: readonly UsageRecord[]) => Promise<void>, admission: Admission, options: UsageRecorderOptions = {}) {
    super(write, options);
    this.#admission = admission;
  }

  override record(record: UsageRecord): void {
    super.record(record);
    this.#admission.recordUsage(record);
  }
}
