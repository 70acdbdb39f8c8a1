/** A key as the store keeps it. */
export interface StoredKey {
  readonly id: string;
  readonly secretHash: string;
  readonly secretSealed: string;
  readonly name: string | null;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/** What authentication needs from storage. */
export interface KeyLookup {
  findKey(id: string): Promise<StoredKey | undefined>;
}
