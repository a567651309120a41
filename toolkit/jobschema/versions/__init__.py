"""``jobschema versions`` over a history: which captures rule each other out (:mod:`.clash`), and the
report that names them (:mod:`.summary`)."""
