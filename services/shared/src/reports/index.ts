// Reports made of the trail: the patient access report (docs/reports.md), its rows and every format it is given in.
export * from './fhir-audit-event.js';
export * from './patient-access-audit-event.js';
export * from './patient-access-csv.js';
export * from './patient-access-pdf.writer.js';
export * from './patient-access-report.js';
export * from './patient-access-rows.js';
export * from './patient-access-window.js';
export * from './patient-access.reader.js';
