/** Flags every command may receive from parseArgs. */
export interface CliFlags {
  readonly config?: string | undefined;
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  readonly name?: string | undefined;
  /** keys create: the new key gets the admin scope. */
  readonly admin?: boolean | undefined;
  /** keys create: the new key's policy, as JSON. */
  readonly policy?: string | undefined;
}
