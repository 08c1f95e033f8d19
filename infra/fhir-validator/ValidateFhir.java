import ca.uhn.fhir.context.FhirContext;
import ca.uhn.fhir.context.support.DefaultProfileValidationSupport;
import ca.uhn.fhir.validation.FhirValidator;
import ca.uhn.fhir.validation.SingleValidationMessage;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.hl7.fhir.common.hapi.validation.support.CommonCodeSystemsTerminologyService;
import org.hl7.fhir.common.hapi.validation.support.InMemoryTerminologyServerValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.SnapshotGeneratingValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.ValidationSupportChain;
import org.hl7.fhir.common.hapi.validation.validator.FhirInstanceValidator;

/**
 * HAPI FHIR's R4 validator as a long-lived process, for the tests (test/support/fhir-validator.ts): starting the JVM
 * and loading the R4 profiles takes seconds, one validation tens of milliseconds.
 *
 * <p>Reads JSON lines on stdin, {"id": ..., "resource": {...}}, and answers each, in order, with one line on stdout:
 * {"id": ..., "issues": [{"severity", "location", "message"}]}. A line it cannot read is answered with a fatal issue
 * (and the id null when it has none), never by exiting. Everything offline: the profiles, value sets and code
 * systems come from the jars (hapi-fhir-validation-resources-r4), no terminology server is asked.
 *
 * <p>Run as: java -Xmx512m -cp "lib/*" ValidateFhir.java (lib: what fetch.sh prints).
 */
public class ValidateFhir {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    // slf4j-simple logs to stderr; HAPI's INFO lines (every profile it loads) would bury a real failure there.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    // stdout carries the answers alone: whatever a library prints goes to stderr instead.
    PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);

    FhirValidator validator = validator();
    // The first validation loads the profiles and builds the snapshots: done here, so that no test waits on it.
    validate(validator, warmUpResource());
    answers.println("{\"ready\":true}");

    BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = lines.readLine()) != null; ) {
      if (line.isBlank()) continue;
      answers.println(JSON.writeValueAsString(answer(validator, line)));
    }
  }

  private static FhirValidator validator() {
    FhirContext ctx = FhirContext.forR4();
    ValidationSupportChain support =
        new ValidationSupportChain(
            new DefaultProfileValidationSupport(ctx),
            new CommonCodeSystemsTerminologyService(ctx),
            new InMemoryTerminologyServerValidationSupport(ctx),
            new SnapshotGeneratingValidationSupport(ctx));
    FhirValidator validator = ctx.newValidator();
    validator.registerValidatorModule(new FhirInstanceValidator(support));
    return validator;
  }

  private static ObjectNode answer(FhirValidator validator, String line) {
    ObjectNode out = JSON.createObjectNode();
    JsonNode request;
    try {
      request = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      out.putNull("id");
      out.set("issues", fatal("the line is not JSON: " + e.getOriginalMessage()));
      return out;
    }
    out.set("id", request.isObject() && request.has("id") ? request.get("id") : JSON.nullNode());
    JsonNode resource = request.path("resource");
    if (!resource.isObject()) {
      out.set("issues", fatal("the line has no \"resource\" object"));
      return out;
    }
    try {
      out.set("issues", validate(validator, resource.toString()));
    } catch (Exception e) {
      // A resource the parser refuses outright (no resourceType, an unknown one) throws rather than reporting.
      out.set("issues", fatal("the validator failed: " + e));
    }
    return out;
  }

  private static ArrayNode validate(FhirValidator validator, String resource) {
    ArrayNode issues = JSON.createArrayNode();
    for (SingleValidationMessage m : validator.validateWithResult(resource).getMessages()) {
      issue(issues, m.getSeverity().getCode(), m.getLocationString(), m.getMessage());
    }
    return issues;
  }

  private static ArrayNode fatal(String message) {
    return issue(JSON.createArrayNode(), "fatal", "", message);
  }

  private static ArrayNode issue(ArrayNode issues, String severity, String location, String message) {
    ObjectNode issue = issues.addObject();
    issue.put("severity", severity);
    issue.put("location", location == null ? "" : location);
    issue.put("message", message);
    return issues;
  }

  /** An AuditEvent, the resource the tests validate most. */
  private static String warmUpResource() {
    return """
        {"resourceType": "AuditEvent",
         "type": {"system": "http://dicom.nema.org/resources/ontology/DCM", "code": "110110"},
         "recorded": "2024-01-01T00:00:00Z",
         "agent": [{"requestor": true, "who": {"identifier": {"value": "warm-up"}}}],
         "source": {"observer": {"display": "warm-up"}}}
        """;
  }
}
