/** Flags every command may receive from parseArgs. */
export interface CliFlags {
  readonly config?: string | undefined;
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  readonly name?: string | undefined;
}
