"""Pydantic v2 models written by datamodel-code-generator from ``schemas/``.

Never edit these files by hand: change the schema, then run ``jobschema generate``.
"""
