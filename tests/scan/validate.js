// Validates an SPDX 2.3 or CycloneDX (1.5, 1.6: the document's
// specVersion) JSON document against the official schemas.
// Usage: node validate.js MODULES_DIR SCHEMA_DIR spdx|cyclonedx FILE
// A CycloneDX schema is looked for in SCHEMA_DIR, then in MODULES_DIR/cdx-schema
// (the schemas of npm's @cyclonedx/cyclonedx-library, which cmd-scan fetches);
// without it the exit status is 77 (skip), never 0.
"use strict";
const fs = require("fs");
const path = require("path");
const [modules, schemas, kind, file] = process.argv.slice(2);
const load = (d, n) => JSON.parse(fs.readFileSync(path.join(d, n), "utf8"));
const req = (n) => require(path.join(modules, "node_modules", n));
const addFormats = req("ajv-formats");
const doc = JSON.parse(fs.readFileSync(file, "utf8"));
let validate;
if (kind === "spdx") {
  const Ajv2019 = req("ajv/dist/2019").default;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  addFormats(ajv);
  validate = ajv.compile(load(schemas, "spdx-2.3.schema.json"));
} else {
  const bom = "bom-" + doc.specVersion + ".SNAPSHOT.schema.json";
  const dir = [schemas, path.join(modules, "cdx-schema")].find((d) => fs.existsSync(path.join(d, bom)));
  if (!dir) {
    console.log("no schema " + bom + " in " + schemas + " or " + path.join(modules, "cdx-schema"));
    process.exit(77);
  }
  const Ajv = req("ajv").default;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // Formats ajv-formats lacks; the rest of the document is still checked.
  ajv.addFormat("iri-reference", true);
  ajv.addFormat("idn-email", true);
  // bom-1.x refers to its neighbours by their SNAPSHOT file names.
  const spdx = load(dir, "spdx.SNAPSHOT.schema.json");
  spdx.$id = "http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json";
  const jsf = load(dir, "jsf-0.82.SNAPSHOT.schema.json");
  jsf.$id = "http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json";
  ajv.addSchema(spdx);
  ajv.addSchema(jsf);
  validate = ajv.compile(load(dir, bom));
}
if (validate(doc)) {
  console.log("valid");
} else {
  console.log(JSON.stringify(validate.errors, null, 1));
  process.exit(1);
}
