// An SPDX 3.0.1 document read by a second, independent reader: a JSON-LD
// processor (jsonld.js, in safe mode: a term the official context does not
// define is an error, not silently dropped) turns it into RDF with the
// official context (tests/data/spdx3/spdx-context.jsonld), and a SHACL
// validator (rdf-validate-shacl) checks that RDF against the official
// model's shapes (tests/data/spdx3/spdx-model.ttl), as the specification's
// own CI checks its examples (pyshacl).  Both files are the ones published
// at https://spdx.org/rdf/3.0.1/ (sources and SHA-256 in
// tests/data/spdx3/SOURCES.md).
// Usage: node spdx3-shacl.js MODULES_DIR FILE
// Exit 0 conforming (prints the triples read), 1 not (prints why).
"use strict";
const fs = require("fs");
const path = require("path");
const [modules, file] = process.argv.slice(2);
const req = (n) => require(path.join(modules, "node_modules", n));
const jsonld = req("jsonld");
const N3 = req("n3");

const data = path.join(__dirname, "..", "data", "spdx3");
const CONTEXT = "https://spdx.org/rdf/3.0.1/spdx-context.jsonld";
const context = JSON.parse(fs.readFileSync(path.join(data, "spdx-context.jsonld"), "utf8"));

// Only the official context, from the copy beside the tests; nothing else
// is fetched.
const documentLoader = async (url) => {
  if (url !== CONTEXT) throw new Error("the document refers to " + url + ", not the SPDX 3.0.1 context");
  return { contextUrl: null, documentUrl: url, document: context };
};

function parse(text, format) {
  const ds = rdf.dataset();
  for (const q of new N3.Parser({ format }).parse(text)) ds.add(q);
  return ds;
}

// rdf-validate-shacl and @zazuko/env are ES modules.
const load = async (n) => (await import(path.join(modules, "node_modules", n, "index.js"))).default;
let rdf;

(async () => {
  rdf = await load("@zazuko/env");
  const SHACLValidator = await load("rdf-validate-shacl");
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  let nquads;
  try {
    nquads = await jsonld.toRDF(doc, { format: "application/n-quads", documentLoader, safe: true });
  } catch (e) {
    console.log("not JSON-LD the SPDX 3.0.1 context reads whole: " + (e.details ? JSON.stringify(e.details).slice(0, 400) : e.message));
    process.exit(1);
  }
  const dataset = parse(nquads, "N-Quads");
  const shapes = parse(fs.readFileSync(path.join(data, "spdx-model.ttl"), "utf8"), "Turtle");
  // The model's classes are owl:Class and sh:NodeShape at once: SHACL
  // targets a shape's instances implicitly only when it is an rdfs:Class,
  // which owl:Class is under OWL's semantics (pyshacl infers it), and
  // finds instances of subclasses through the data's rdfs:subClassOf, and
  // the classes of the vocabularies' named individuals in the data too:
  // pyshacl is given the model as its ontology graph, mixed into the data.
  // Both done here outright.
  const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
  const OWL_CLASS = "http://www.w3.org/2002/07/owl#Class";
  const SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
  const n = rdf.namedNode;
  let classes = 0;
  for (const q of [...shapes.match(null, n(RDF_TYPE), n(OWL_CLASS))]) {
    shapes.add(rdf.quad(q.subject, n(RDF_TYPE), n("http://www.w3.org/2000/01/rdf-schema#Class")));
    classes++;
  }
  const size = dataset.size;
  for (const q of shapes) dataset.add(rdf.quad(q.subject, q.predicate, q.object));
  if (!shapes.match(null, n(SUBCLASS), null).size) {
    console.log("the model has no rdfs:subClassOf: not the SPDX 3.0.1 model");
    process.exit(2);
  }
  if (classes < 50) {
    console.log("the model holds " + classes + " classes: not the SPDX 3.0.1 model");
    process.exit(2);
  }
  const validator = new SHACLValidator(shapes, { factory: rdf });
  const report = await validator.validate(dataset);
  if (report.conforms) {
    console.log(size + " triples conform to the SPDX 3.0.1 model");
    return;
  }
  for (const r of report.results.slice(0, 20))
    console.log(
      (r.focusNode && r.focusNode.value) + " " + (r.path && r.path.value) + ": " +
        r.message.map((m) => m.value).join("; ") + " (" + (r.sourceConstraintComponent && r.sourceConstraintComponent.value) + ")"
    );
  process.exit(1);
})().catch((e) => {
  console.log("cannot read: " + e.stack);
  process.exit(2);
});
