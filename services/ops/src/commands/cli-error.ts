/** A failure the operator can act on: printed as is, with the exit code (2: wrong usage, 1: anything else). */
export class CliError extends Error {
  override name = 'CliError';

  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
