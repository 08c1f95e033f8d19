import { PURPOSE_OF_USE } from '../contract/audit-event/purpose-of-use.js';
import type { AuditEventView } from '../contract/audit-event/event-view.js';
import type {
  PatientAccessHeading,
  PatientAccessReport,
  PatientAccessRow,
  RowCheckpoint,
} from './patient-access-report.js';

/** The media type of FHIR's JSON format (R4 http.html "Content Types"). */
export const FHIR_JSON = 'application/fhir+json';

/** Our extension for the checkpoint that covers an event; only the patient access report knows it. */
export const CHECKPOINT_EXTENSION = 'https://audit-trail.dev/fhir/StructureDefinition/checkpoint';

const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const PARTICIPATION = 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType';
const ENTITY_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-entity-type';
const OBJECT_ROLE = 'http://terminology.hl7.org/CodeSystem/object-role';
const ACT_REASON = 'http://terminology.hl7.org/CodeSystem/v3-ActReason';

export interface Coding {
  system: string;
  code: string;
  display?: string;
}

export interface CodeableConcept {
  coding?: Coding[];
  text?: string;
}

export interface Identifier {
  system: string;
  value?: string;
}

export interface Reference {
  type?: string;
  identifier?: Identifier;
  display?: string;
}

export interface Extension {
  url: string;
  extension?: Extension[];
  valueDecimal?: number;
  valueInstant?: string;
}

export interface FhirAuditEventAgent {
  type?: CodeableConcept;
  role?: CodeableConcept[];
  who?: Reference;
  requestor: boolean;
  network?: { address: string; type: '2' };
  purposeOfUse?: CodeableConcept[];
}

export interface FhirAuditEventEntity {
  what?: Reference;
  type: Coding;
  role: Coding;
  detail?: { type: string; valueString: string }[];
}

/** The R4 AuditEvent as we emit it: only the elements this mapping fills. */
export interface FhirAuditEvent {
  resourceType: 'AuditEvent';
  id: string;
  extension?: Extension[];
  type: Coding;
  subtype?: Coding[];
  action: 'C' | 'R' | 'U' | 'D' | 'E';
  recorded: string;
  outcome: '0' | '4';
  purposeOfEvent?: CodeableConcept[];
  agent: FhirAuditEventAgent[];
  source: { site: string; observer: Reference; type: Coding[] };
  entity: FhirAuditEventEntity[];
}

export interface FhirBundle {
  resourceType: 'Bundle';
  type: 'searchset';
  timestamp: string;
  total: number;
  link?: { relation: 'self'; url: string }[];
  entry?: { fullUrl: string; resource: FhirAuditEvent; search: { mode: 'match' } }[];
}

/** What both callers know of an event, in one shape: the lookup's view and the report's row each map to it. */
type MappedEvent = Omit<
  AuditEventView,
  'fields_accessed' | 'phi_involved' | 'details' | 'accounting_exclusion'
> & {
  fields_accessed: readonly string[];
  checkpoint: RowCheckpoint | null;
};

/**
 * The shape an event takes, after the BALP profile it follows: its type, subtype and action, and the agent types
 * that profile gives the user and the client the user worked from (docs/fhir.md "Patterns").
 */
interface Pattern {
  type: Coding;
  subtype?: Coding;
  action: FhirAuditEvent['action'];
  userType?: Coding;
  clientType: Coding;
  /** The resource's role: a search names a query, every other pattern the resource itself. */
  resourceRole: Coding;
}

const REST: Coding = {
  system: 'http://terminology.hl7.org/CodeSystem/audit-event-type',
  code: 'rest',
  display: 'RESTful Operation',
};
// The restful-interaction displays are the codes themselves in R4's code system.
const interaction = (code: string): Coding => ({
  system: 'http://hl7.org/fhir/restful-interaction',
  code,
  display: code,
});
const dcm = (code: string, display: string): Coding => ({ system: DCM, code, display });
const SOURCE_ROLE = dcm('110153', 'Source Role ID');
const DESTINATION_ROLE = dcm('110152', 'Destination Role ID');
const APPLICATION = dcm('110150', 'Application');
const INFORMATION_RECIPIENT: Coding = {
  system: PARTICIPATION,
  code: 'IRCP',
  display: 'information recipient',
};
const AUTHOR: Coding = { system: PARTICIPATION, code: 'AUT', display: 'author (originator)' };
const DOMAIN_RESOURCE: Coding = { system: OBJECT_ROLE, code: '4', display: 'Domain Resource' };

/** BALP PatientRead, PatientCreate, PatientUpdate, PatientDelete and PatientQuery, in that order. */
const READ: Pattern = {
  type: REST,
  subtype: interaction('read'),
  action: 'R',
  userType: INFORMATION_RECIPIENT,
  // DICOM's roles follow the data: on a read it flows to the client, the destination.
  clientType: DESTINATION_ROLE,
  resourceRole: DOMAIN_RESOURCE,
};
const CREATE: Pattern = {
  type: REST,
  subtype: interaction('create'),
  action: 'C',
  userType: AUTHOR,
  clientType: SOURCE_ROLE,
  resourceRole: DOMAIN_RESOURCE,
};
const UPDATE: Pattern = { ...CREATE, subtype: interaction('update'), action: 'U' };
const DELETE: Pattern = {
  ...CREATE,
  subtype: interaction('delete'),
  action: 'D',
  clientType: APPLICATION,
};
const SEARCH: Pattern = {
  type: REST,
  subtype: interaction('search-type'),
  action: 'E',
  userType: INFORMATION_RECIPIENT,
  clientType: SOURCE_ROLE,
  resourceRole: { system: OBJECT_ROLE, code: '24', display: 'Query' },
};

/**
 * BALP PrivacyDisclosure.Source: an Export with the ISO 21089 disclose subtype, action R. BALP's source agent is
 * the disclosing party; the one we know is the user who disclosed.
 */
const DISCLOSURE: Pattern = {
  type: dcm('110106', 'Export'),
  subtype: {
    system: 'http://terminology.hl7.org/CodeSystem/iso-21089-lifecycle',
    code: 'disclose',
    display: 'Disclose Record Lifecycle Event',
  },
  action: 'R',
  userType: SOURCE_ROLE,
  clientType: APPLICATION,
  resourceRole: DOMAIN_RESOURCE,
};

/**
 * An action whose verb names no REST interaction (`phi.export`, `phi.print`): DICOM's Patient Record event, which
 * covers any use of a patient's record, with action E. No BALP profile fits it, so the user gets no agent type.
 */
const PATIENT_RECORD: Pattern = {
  type: dcm('110110', 'Patient Record'),
  action: 'E',
  clientType: APPLICATION,
  resourceRole: DOMAIN_RESOURCE,
};

/** An action's last segment, its verb, to the REST pattern it names. A Map: no verb may reach Object's keys. */
const VERBS: ReadonlyMap<string, Pattern> = new Map([
  ...['read', 'view', 'get'].map((verb) => [verb, READ] as const),
  ...['create', 'add'].map((verb) => [verb, CREATE] as const),
  ...['update', 'write', 'edit', 'modify'].map((verb) => [verb, UPDATE] as const),
  ...['delete', 'remove'].map((verb) => [verb, DELETE] as const),
  ...['query', 'search', 'list'].map((verb) => [verb, SEARCH] as const),
]);

/** A disclosure is a disclosure whatever its verb; any other event is the interaction its verb names. */
function patternOf(event: Pick<MappedEvent, 'action' | 'disclosure'>): Pattern {
  if (event.disclosure) return DISCLOSURE;
  return VERBS.get(event.action.slice(event.action.lastIndexOf('.') + 1)) ?? PATIENT_RECORD;
}

/** FHIR forbids empty strings and warns of blank ones: text that is only whitespace says nothing, and is left out. */
const present = (text: string) => text.trim() !== '';

/**
 * A URN naming one kind of thing of one tenant, such as its users. Each part is percent-encoded: a URI has no
 * spaces, and a colon inside a part must not read as a separator.
 */
const tenantUrn = (tenantId: string, ...parts: string[]) =>
  `urn:audit-trail:tenant:${[tenantId, ...parts].map(encodeURIComponent).join(':')}`;

/** The user as BALP's user agent: the requestor, known by id, with their role and stated justification. */
function userAgent(event: MappedEvent, pattern: Pattern): FhirAuditEventAgent {
  return {
    ...(pattern.userType && { type: { coding: [pattern.userType] } }),
    ...(present(event.user_role) && { role: [{ text: event.user_role }] }),
    ...(present(event.user_id) && {
      who: { identifier: { system: tenantUrn(event.tenant_id, 'user'), value: event.user_id } },
    }),
    requestor: true,
    // The justification is the user's own words for why: agent.purposeOfUse's text (R4 CodeableConcept.text).
    ...(present(event.justification) && { purposeOfUse: [{ text: event.justification }] }),
  };
}

/**
 * BALP's client agent: the software the user worked from, known by its User-Agent and its address. BALP puts the
 * address here, never on the user ("users are not network devices"). None when neither is known.
 */
function clientAgent(event: MappedEvent, pattern: Pattern): FhirAuditEventAgent[] {
  if (!present(event.user_agent) && !present(event.source_ip)) return [];
  return [
    {
      type: { coding: [pattern.clientType] },
      ...(present(event.user_agent) && { who: { display: event.user_agent } }),
      requestor: false,
      ...(present(event.source_ip) && { network: { address: event.source_ip, type: '2' } }),
    },
  ];
}

/**
 * BALP PrivacyDisclosure's recipient agent, typed Destination Role ID as there, and information recipient as the
 * R4 disclosure example types it. None when the producer named no recipient.
 */
function recipientAgent(event: MappedEvent): FhirAuditEventAgent[] {
  if (!event.disclosure || !present(event.recipient)) return [];
  return [
    {
      type: { coding: [DESTINATION_ROLE, INFORMATION_RECIPIENT] },
      who: { display: event.recipient },
      requestor: false,
    },
  ];
}

/** BALP's patient entity, a Person in the Patient role, known by the tenant's own patient id. */
function patientEntity(event: MappedEvent): FhirAuditEventEntity[] {
  if (!present(event.patient_id)) return [];
  return [
    {
      what: {
        type: 'Patient',
        identifier: { system: tenantUrn(event.tenant_id, 'patient'), value: event.patient_id },
      },
      type: { system: ENTITY_TYPE, code: '1', display: 'Person' },
      role: { system: OBJECT_ROLE, code: '1', display: 'Patient' },
    },
  ];
}

/**
 * BALP's data entity: a System Object, named by an identifier whose system names the resource type (so a
 * resource without an id still says what kind it was), with a detail for each field read.
 */
function resourceEntity(event: MappedEvent, pattern: Pattern): FhirAuditEventEntity {
  const fields = event.fields_accessed.filter(present);
  const system = tenantUrn(event.tenant_id, 'resource-type', event.resource_type);
  return {
    what: { identifier: { system, ...(present(event.resource_id) && { value: event.resource_id }) } },
    type: { system: ENTITY_TYPE, code: '2', display: 'System Object' },
    role: pattern.resourceRole,
    ...(fields.length > 0 && { detail: fields.map((field) => ({ type: 'field', valueString: field })) }),
  };
}

/** The purpose of use as a coding of HL7's ActReason, with the code system's display. */
function purposeOfEvent(code: string): CodeableConcept[] {
  if (!present(code)) return [];
  const display = PURPOSE_OF_USE.get(code)?.display;
  return [{ coding: [{ system: ACT_REASON, code, ...(display && { display }) }] }];
}

/**
 * The checkpoint as our extension: its tree size (a decimal, as R4 has no 64-bit integer and a tree may outgrow
 * unsignedInt) and when it was signed.
 */
function checkpointExtension(checkpoint: RowCheckpoint | null): Extension[] {
  if (!checkpoint) return [];
  return [
    {
      url: CHECKPOINT_EXTENSION,
      extension: [
        { url: 'treeSize', valueDecimal: checkpoint.tree_size },
        { url: 'signedAt', valueInstant: checkpoint.signed_at },
      ],
    },
  ];
}

/** Arrays FHIR must not see empty become absent elements. */
const nonEmpty = <K extends string, T>(key: K, items: T[]) =>
  (items.length > 0 ? { [key]: items } : {}) as Partial<Record<K, T[]>>;

function toFhir(event: MappedEvent): FhirAuditEvent {
  const pattern = patternOf(event);
  return {
    resourceType: 'AuditEvent',
    // A UUID fits FHIR's id rule: [A-Za-z0-9\-\.]{1,64}.
    id: event.event_id,
    ...nonEmpty('extension', checkpointExtension(event.checkpoint)),
    type: pattern.type,
    ...(pattern.subtype && { subtype: [pattern.subtype] }),
    action: pattern.action,
    // The API's time text (UTC, milliseconds, +00:00) is already a FHIR instant.
    recorded: event.timestamp,
    // success false says neither why nor how badly: most failures an audit trail records are refusals, a 4xx,
    // which is R4's minor failure.
    outcome: event.success ? '0' : '4',
    ...nonEmpty('purposeOfEvent', purposeOfEvent(event.purpose_of_use)),
    agent: [userAgent(event, pattern), ...clientAgent(event, pattern), ...recipientAgent(event)],
    source: {
      site: event.tenant_id,
      observer: { display: 'Audit Trail Service' },
      type: [
        {
          system: 'http://terminology.hl7.org/CodeSystem/security-source-type',
          code: '4',
          display: 'Application Server',
        },
      ],
    },
    entity: [...patientEntity(event), resourceEntity(event, pattern)],
  };
}

/** The single-event lookup's event as an R4 AuditEvent (docs/fhir.md). */
export function fhirAuditEvent(event: AuditEventView): FhirAuditEvent {
  return toFhir({
    ...event,
    fields_accessed: JSON.parse(event.fields_accessed) as string[],
    checkpoint: null,
  });
}

/** A patient access report's row as an R4 AuditEvent: the heading says whose report, and whose PHI. */
export function fhirReportAuditEvent(heading: PatientAccessHeading, row: PatientAccessRow): FhirAuditEvent {
  return toFhir({
    ...row,
    tenant_id: heading.tenant_id,
    patient_id: heading.patient_id,
    // The report does not carry the User-Agent.
    user_agent: '',
  });
}

/**
 * A patient access report as a searchset Bundle, one match for each row, in the rows' order; `self` is the request
 * that asked for it, as the server received it, when the report was read through the API.
 */
export function fhirBundle(report: PatientAccessReport, self?: string): FhirBundle {
  const entries = report.rows.map((row) => ({
    fullUrl: `urn:uuid:${row.event_id}`,
    resource: fhirReportAuditEvent(report.heading, row),
    search: { mode: 'match' as const },
  }));
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    timestamp: report.heading.generated_at,
    total: report.rows.length,
    ...(self ? { link: [{ relation: 'self' as const, url: self }] } : {}),
    ...nonEmpty('entry', entries),
  };
}
