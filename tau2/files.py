"""Reading data files the way tau2 reads every input: regular files only, within a size bound, JSON and
TOML parsed with one-line errors that name the file and the failing field. Domain packs and the task
generator read and write their files through these, so bad data reads `<file>: <field>: <reason>`."""

from tau2._jsonfile import (
    MAX_JSON_BYTES,
    parse_json,
    parse_toml,
    read_bytes_bounded,
    read_json,
    read_text_bounded,
    validation_error,
    write_json_parts,
)

__all__ = [
    "MAX_JSON_BYTES",
    "parse_json",
    "parse_toml",
    "read_bytes_bounded",
    "read_json",
    "read_text_bounded",
    "validation_error",
    "write_json_parts",
]
