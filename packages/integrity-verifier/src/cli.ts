#!/usr/bin/env node
import { verifyCommand } from './verify-command.js';

// The verifier command over an export (docs/integrity.md "Offline verification").
process.exitCode = await verifyCommand(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
