import { AppError } from '@audit/shared';

export class MalformedBodyError extends AppError {
  readonly status = 400;
  readonly code = 'malformed_body';
}
