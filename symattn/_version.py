__version__ = "0.1.0"

# The version of the JSON documents' shape (symattn/schemas/*.json): raised when a
# field is removed or changes meaning, not when one is added.
SCHEMA_VERSION = "1"
