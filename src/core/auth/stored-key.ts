import type { KeyPolicy } from '../limits/key-policy.ts';

/** A key as the store keeps it. */
export interface StoredKey {
  readonly id: string;
  readonly secretHash: string;
  readonly secretSealed: string;
  readonly name: string | null;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  /** Its limits and scope; undefined: a user key without limits. */
  readonly policy: KeyPolicy | undefined;
}

/** What authentication needs from storage. */
export interface KeyLookup {
  findKey(id: string): Promise<StoredKey | undefined>;
}
