import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { purposeOfUsePath, purposeOfUseSource } from '../../scripts/generate-purpose-of-use.js';
import {
  PURPOSE_OF_USE,
  purposeAncestors,
} from '../../services/shared/src/contract/audit-event/purpose-of-use.js';

// The purpose of use codes the ingest accepts come from the jar the FHIR validator runs from (an integration test
// because it needs that jar: infra/fhir-validator/fetch.sh fetches it on first use).
describe('purpose-of-use.ts', () => {
  it('is what `npm run gen:purpose-of-use` writes from HAPI FHIR’s ActReason code system', async () => {
    const committed = await readFile(purposeOfUsePath, 'utf8');
    expect(committed, 'run `npm run gen:purpose-of-use`').toBe(await purposeOfUseSource());
  }, 900_000);

  it('holds the common purposes, each under the one it narrows', () => {
    for (const code of ['TREAT', 'HPAYMT', 'HOPERAT', 'PUBHLTH', 'HRESCH', 'PATRQT']) {
      expect(PURPOSE_OF_USE.get(code)?.parent, code).toBeNull();
    }
    expect(PURPOSE_OF_USE.get('ETREAT')).toEqual({ display: 'Emergency Treatment', parent: 'TREAT' });
    expect(purposeAncestors('BTG')).toEqual(['ETREAT', 'TREAT']);
    expect(purposeAncestors('NOTACODE')).toEqual([]);
  });
});
