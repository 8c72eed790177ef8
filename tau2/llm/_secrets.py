"""Secrets in model settings: live in memory for the calls, a fixed marker wherever they are written.

A provider argument that is a credential, by its name (`api_key`, an `Authorization`, `X-Auth` or `Cookie`
header, `session`, `signature`, …) or by its value (`Bearer …`, `sk-…`, a JWT, a long random string), at
any depth, so `extra_headers` too, is replaced by `REDACTED` the moment settings are read, and its value is
kept beside the arguments, in memory only, for the transport; so is a credential in an API base's query or
path (`?api-key=…`). Everything that serialises, prints or compares settings (manifests, records, reports,
exports, labels, error lines) sees the marker, so no value can leak and a configuration is the same
whichever key it was given. A marker read back from a stored run is a *withheld* secret: it must be given
again before the model is called. What counts as a credential is `tau2._credentials`' to say.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any, Final
from urllib.parse import unquote_plus

from pydantic import GetCoreSchemaHandler, JsonValue
from pydantic_core import CoreSchema, core_schema

from tau2._credentials import REDACTED, is_secret_name, is_secret_value
from tau2._urls import is_url, redacted_url, url_secrets

__all__ = [
    "REDACTED",
    "SecretArgs",
    "SecretURL",
    "environment_secrets",
    "is_secret_name",
    "is_secret_value",
    "redacted_settings",
    "scrub",
]

MIN_SCRUBBED_LENGTH: Final = 6
"""Shorter values are not searched for in provider messages: placeholders such as `k` or `EMPTY` would
match ordinary text and are no credential."""

ArgPath = tuple[str | int, ...]
"""Where a value sits in nested arguments, e.g. `("extra_headers", "Authorization")` (list items by index)."""


class SecretArgs(dict[str, JsonValue]):
    """Provider arguments whose secrets read as `REDACTED`: the dictionary itself (what pydantic, `json`
    and `repr` see, and what equality compares) never holds a secret; the live values sit beside it, in
    memory, for `for_request`. Copies made with `dict(...)` or `.copy()` are plain and lose them."""

    def __init__(self, args: Mapping[str, JsonValue] | None = None) -> None:
        """`args` with every secret taken out and replaced by `REDACTED` (a marker already there, as read
        from a stored run, stays a withheld secret)."""
        live: dict[ArgPath, JsonValue] = {}
        super().__init__({key: _redacted((key,), value, live) for key, value in (args or {}).items()})
        self._live = live

    def merged(self, given: SecretArgs) -> SecretArgs:
        """These arguments with `given` ones set over them, name by name, secrets included (how a resume
        gives the keys again without repeating every other argument)."""
        kept = {path: value for path, value in self._live.items() if path[0] not in given}
        return _restored({**self, **given}, {**kept, **given._live})

    def for_request(self) -> dict[str, JsonValue]:
        """The arguments to send: every secret's live value in place of its marker; a withheld secret is
        left out (the provider's environment variable may then supply it)."""
        return _revealed_mapping((), self, self._live)

    def withheld(self) -> list[str]:
        """Secrets shown by a marker without a live value (stored runs), as dotted paths."""
        return [".".join(map(str, path)) for path in _marker_paths((), dict(self)) if path not in self._live]

    def secret_texts(self) -> list[str]:
        """The live secret values as text, for scrubbing provider messages: each whole, a header's
        credential also without its scheme (`Bearer sk-…` is echoed as `sk-…` too), and a URL's
        credentials each on its own."""
        return [text for value in self._live.values() for text in _texts(value)]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with the live values (worker processes and Ray actors make the calls)."""
        return (_restored, (dict(self), self._live))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        plain = handler.generate_schema(dict[str, JsonValue])
        return core_schema.no_info_wrap_validator_function(
            _validate,
            plain,
            serialization=core_schema.plain_serializer_function_ser_schema(_serialise),
        )


class SecretURL(str):
    """An API base whose credentials (`?api-key=…`, a key-shaped path segment) read as `REDACTED`: the
    string itself (what is dumped, printed, compared and hashed) never holds one; the live URL sits beside
    it, in memory, for `for_request`. A marker read back from a stored run is withheld until the URL is
    given again."""

    _live: str | None

    def __new__(cls, url: str) -> SecretURL:
        shown = redacted_url(url)
        made = super().__new__(cls, shown)
        made._live = url if shown != url else None
        return made

    def for_request(self) -> str:
        """The URL to send requests to, credentials included."""
        return str(self) if self._live is None else self._live

    def withheld(self) -> bool:
        """Whether a credential is shown by a marker without its live value (a stored run's URL)."""
        return self._live is None and _is_marker(str(self))

    def secret_texts(self) -> list[str]:
        """The live credentials, as written and decoded, for scrubbing provider messages."""
        return [] if self._live is None else _texts(self._live)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with the live URL, like `SecretArgs`."""
        return (_restored_url, (str(self), self._live))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_wrap_validator_function(
            _validate_url,
            core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )


def redacted_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings nested as a configuration file nests them (an experiment's base and arms), with every
    secret replaced by the marker exactly as `SecretArgs` and `SecretURL` replace them."""
    return {key: _redacted((key,), value, {}) for key, value in settings.items()}


def _validate(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> SecretArgs:
    """Keep a `SecretArgs` (and its live values) as it is; redact anything else once it is valid."""
    return value if isinstance(value, SecretArgs) else SecretArgs(handler(value))


def _validate_url(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> SecretURL:
    """Keep a `SecretURL` (and its live URL) as it is; redact any other valid string."""
    return value if isinstance(value, SecretURL) else SecretURL(handler(value))


def _serialise(value: SecretArgs) -> dict[str, JsonValue]:
    """The redacted items, in every mode: a dump never carries a secret (copy a model to keep them)."""
    return dict(value)


def _redacted(path: ArgPath, value: Any, live: dict[ArgPath, Any]) -> Any:
    """`value` at `path` with its secrets moved to `live` and replaced by the marker: the whole value of a
    name that holds a credential (unless it is a flag or unset), any text shaped like one, and the
    credentials of a URL."""
    if value is None or isinstance(value, bool):
        return value
    name = path[-1]
    if isinstance(name, str) and is_secret_name(name):
        if value != REDACTED:
            live[path] = value
        return REDACTED
    if isinstance(value, Mapping):
        return {key: _redacted((*path, key), item, live) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted((*path, index), item, live) for index, item in enumerate(value)]
    if isinstance(value, str):
        shown = REDACTED if is_secret_value(value) else redacted_url(value) if is_url(value) else value
        if shown != value:
            live[path] = value
        return shown
    return value


def _revealed(path: ArgPath, item: JsonValue, live: Mapping[ArgPath, JsonValue]) -> JsonValue:
    """`item` at `path` with markers replaced by live values."""
    if path in live:
        return live[path]
    if isinstance(item, dict):
        return _revealed_mapping(path, item, live)
    if isinstance(item, list):
        return [_revealed((*path, index), value, live) for index, value in enumerate(item)]
    return item


def _revealed_mapping(
    path: ArgPath, items: Mapping[str, JsonValue], live: Mapping[ArgPath, JsonValue]
) -> dict[str, JsonValue]:
    """`items` at `path` with markers replaced by live values; a withheld secret's key is dropped."""
    return {
        key: _revealed((*path, key), item, live)
        for key, item in items.items()
        if (*path, key) in live or not _is_marker(item)
    }


def _restored(items: dict[str, JsonValue], live: dict[ArgPath, JsonValue]) -> SecretArgs:
    """`SecretArgs` from items already redacted and their live values (merging, unpickling)."""
    args = SecretArgs()
    args.update(items)
    args._live = live
    return args


def _restored_url(shown: str, live: str | None) -> SecretURL:
    """`SecretURL` from its shown text and live URL (unpickling)."""
    url = SecretURL(shown)
    url._live = live
    return url


def _is_marker(value: Any) -> bool:
    """Whether `value` stands for a secret: the marker, or a URL holding one."""
    return isinstance(value, str) and (value == REDACTED or (is_url(value) and REDACTED in value))


def _marker_paths(path: ArgPath, value: Any) -> Iterable[ArgPath]:
    """Paths of the markers standing for secrets in `value`."""
    if _is_marker(value):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _marker_paths((*path, key), item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _marker_paths((*path, index), item)


def _texts(value: Any) -> list[str]:
    """A live secret as the texts a provider might echo: whole; without its scheme (`Bearer …`); and for
    a URL, each credential in it, as written and decoded."""
    text = value if isinstance(value, str) else json.dumps(value)
    texts = [text]
    scheme_and_credential = text.split(maxsplit=1)
    if len(scheme_and_credential) == 2:
        texts.append(scheme_and_credential[1])
    if is_url(text):
        for part in url_secrets(text):
            texts += [part, unquote_plus(part)]
    return texts


def environment_secrets() -> list[str]:
    """Values of environment variables named like credentials (`OPENAI_API_KEY`, `HF_TOKEN`, …), which a
    transport may send without their ever being in the settings."""
    return [value for name, value in os.environ.items() if value and is_secret_name(name)]


def scrub(text: str, secrets: Iterable[str]) -> str:
    """`text` with every occurrence of each secret (long enough to be told from ordinary text) replaced
    by the marker; the longest first, so a key containing another is replaced whole."""
    for secret in sorted({s for s in secrets if len(s) >= MIN_SCRUBBED_LENGTH}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text
