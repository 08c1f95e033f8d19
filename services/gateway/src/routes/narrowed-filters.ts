import { ForbiddenError } from '@audit/shared/platform';
import type { EventFilters } from '@audit/shared/projection';
import type { Principal } from '../domain/authenticate.js';
import { narrowFilters } from '../domain/narrowing.js';

/** The filters a read runs with: those given, within the viewer token's narrowing if it has one (403 past it). */
export function narrowedFilters(principal: Principal, given: EventFilters): EventFilters {
  const narrowing = principal.viewer?.narrowedTo;
  if (!narrowing) return given;
  const result = narrowFilters(given, narrowing);
  if (result.ok) return result.filters;
  const fixed = result.field === 'action' ? 'action_prefix' : result.field;
  throw new ForbiddenError(
    `This viewer token shows only events with ${fixed} ${fixed === 'action_prefix' ? 'starting with' : '='} ${JSON.stringify(narrowing[fixed])}.`,
    [{ field: result.field, message: 'reaches past the viewer token’s filter' }],
  );
}
