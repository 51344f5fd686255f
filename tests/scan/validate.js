// Validates an SPDX 2.3, SPDX 3.0.1 or CycloneDX (1.5, 1.6, 1.7: the
// document's specVersion) JSON document against the official schemas.
// Usage: node validate.js MODULES_DIR SCHEMA_DIR spdx|spdx3|cyclonedx FILE
// SPDX 3.0.1's schema is tests/data/spdx3/spdx-json-schema.json (its source
// and SHA-256 in tests/data/spdx3/SOURCES.md); the document is then checked
// for what a schema cannot say: every spdxId unique, every element with a
// creationInfo that resolves, every reference (a relationship's from and
// to, an annotation's subject, the elements and root elements of the
// document and the SBOM, the agents and tools of the creation info) naming
// an element of the document.
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
if (kind === "spdx3") {
  const Ajv2020 = req("ajv/dist/2020").default;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  validate = ajv.compile(load(path.join(__dirname, "..", "data", "spdx3"), "spdx-json-schema.json"));
} else if (kind === "spdx") {
  const Ajv2019 = req("ajv/dist/2019").default;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  addFormats(ajv);
  if (!fs.existsSync(path.join(schemas, "spdx-2.3.schema.json"))) {
    console.log("no schema spdx-2.3.schema.json in " + schemas + " (CI puts shared/ beside the checkout)");
    process.exit(77);
  }
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
  // 1.7 takes enumerations from cryptography-defs.
  if (fs.existsSync(path.join(dir, "cryptography-defs.SNAPSHOT.schema.json"))) {
    const crypto = load(dir, "cryptography-defs.SNAPSHOT.schema.json");
    crypto.$id = "http://cyclonedx.org/schema/cryptography-defs.SNAPSHOT.schema.json";
    ajv.addSchema(crypto);
  }
  validate = ajv.compile(load(dir, bom));
}
// What SPDX 3 requires that its JSON schema cannot check.
function spdx3Semantics(d) {
  const problems = [];
  const graph = Array.isArray(d["@graph"]) ? d["@graph"] : [];
  const ids = new Map(), blanks = new Set();
  for (const e of graph) {
    if (e["@id"]) blanks.add(e["@id"]);
    if (!e.spdxId) continue;
    if (ids.has(e.spdxId)) problems.push("spdxId " + e.spdxId + " is not unique");
    ids.set(e.spdxId, e);
  }
  const must = (ref, what) => {
    if (!ids.has(ref)) problems.push(what + " names " + ref + ", no element of the document");
  };
  let docs = 0;
  for (const e of graph) {
    if (e.type === "CreationInfo") {
      for (const a of e.createdBy || []) must(a, "createdBy");
      for (const t of e.createdUsing || []) must(t, "createdUsing");
      continue;
    }
    if (!e.spdxId) continue;
    if (!e.creationInfo || (typeof e.creationInfo === "string" && !blanks.has(e.creationInfo)))
      problems.push(e.spdxId + " has no creationInfo that resolves");
    if (e.type === "Relationship") {
      must(e.from, e.spdxId + " from");
      for (const t of e.to || []) must(t, e.spdxId + " to");
    }
    if (e.type === "Annotation") must(e.subject, e.spdxId + " subject");
    if (e.type === "SpdxDocument") docs++;
    for (const key of ["element", "rootElement"])
      for (const x of e[key] || []) must(x, e.spdxId + " " + key);
  }
  if (docs !== 1) problems.push(docs + " SpdxDocument elements, not one");
  return problems;
}
const semantic = kind === "spdx3" ? spdx3Semantics(doc) : [];
if (validate(doc) && !semantic.length) {
  console.log("valid");
} else if (!semantic.length) {
  console.log(JSON.stringify(validate.errors, null, 1));
  process.exit(1);
} else {
  console.log(semantic.join("\n"));
  process.exit(1);
}
