// Validates an SPDX 2.3 or CycloneDX 1.5 JSON document against the
// official schemas.  Usage: node validate.js MODULES_DIR SCHEMA_DIR spdx|cyclonedx FILE
"use strict";
const fs = require("fs");
const path = require("path");
const [modules, schemas, kind, file] = process.argv.slice(2);
const load = (n) => JSON.parse(fs.readFileSync(path.join(schemas, n), "utf8"));
const req = (n) => require(path.join(modules, "node_modules", n));
const addFormats = req("ajv-formats");
let validate;
if (kind === "spdx") {
  const Ajv2019 = req("ajv/dist/2019").default;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  addFormats(ajv);
  validate = ajv.compile(load("spdx-2.3.schema.json"));
} else {
  const Ajv = req("ajv").default;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // Formats ajv-formats lacks; the rest of the document is still checked.
  ajv.addFormat("iri-reference", true);
  ajv.addFormat("idn-email", true);
  // bom-1.5 refers to its neighbours by their SNAPSHOT file names.
  const spdx = load("spdx.SNAPSHOT.schema.json");
  spdx.$id = "http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json";
  const jsf = load("jsf-0.82.SNAPSHOT.schema.json");
  jsf.$id = "http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json";
  ajv.addSchema(spdx);
  ajv.addSchema(jsf);
  validate = ajv.compile(load("bom-1.5.SNAPSHOT.schema.json"));
}
const doc = JSON.parse(fs.readFileSync(file, "utf8"));
if (validate(doc)) {
  console.log("valid");
} else {
  console.log(JSON.stringify(validate.errors, null, 1));
  process.exit(1);
}
