"""What jobschema knows about the two job APIs beyond their schemas: field groups, phases and
statuses, annotation keys and endpoint paths that the rules, the diff, the test kit, the HAR reader,
``serve`` and ``record`` share. Facts only: no module here imports another part of jobschema."""
