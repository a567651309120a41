"""The bundled schemas (shipped in ``bundled/``), detecting which one a payload is, and compiling a
schema into the trees the jobs walk: annotated places (:mod:`.annotated`), the place tree of every
value (:mod:`.places`), and the generated models (:mod:`.codegen`)."""
