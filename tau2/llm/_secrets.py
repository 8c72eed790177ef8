"""Secrets in model settings: live in memory for the calls, a fixed marker wherever they are written.

A provider argument whose name looks like a credential (an API key, a token, a password, an Authorization
or Cookie header: at any depth, so `extra_headers` too) is replaced by `REDACTED` the moment settings are
read, and its value is kept beside the arguments, in memory only, for the transport. Everything that
serialises, prints or compares settings (manifests, records, reports, exports, labels, error lines) sees
the marker, so no value can leak and a configuration is the same whichever key it was given. A marker read
back from a stored run is a *withheld* secret: it must be given again before the model is called.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from pydantic import GetCoreSchemaHandler, JsonValue
from pydantic_core import CoreSchema, core_schema

REDACTED: Final = "[redacted]"
"""What a secret's value is written as, everywhere."""

SECRET_WORDS: Final = frozenset(
    {"key", "token", "secret", "password", "passwd", "authorization", "cookie", "credential", "credentials"}
)
"""A name holding one of these words (split at `_`, `-`, `.` and case changes) names a secret:
`api_key`, `x-api-key`, `auth_token`, `client_secret`, `Authorization`, `Proxy-Authorization`, `Cookie`.
Counts such as `max_tokens` hold `tokens`, not `token`."""

SECRET_TEXT: Final = re.compile(r"token(?!s|iz)|secret|passw(?:or)?d|authorization|cookie|credential|key$")
"""The same words run together (`apikey`, `accesstoken`, `clientsecret`), searched in the name lowercased
without separators; `tokens` and `tokenizer` are no secret."""

NOT_SECRET: Final = frozenset({"prompt_cache_key"})
"""Names with a secret word that name no secret (OpenAI's cache routing key)."""

MIN_SCRUBBED_LENGTH: Final = 6
"""Shorter values are not searched for in provider messages: placeholders such as `k` or `EMPTY` would
match ordinary text and are no credential."""

ArgPath = tuple[str, ...]
"""Where a value sits in nested arguments, e.g. `("extra_headers", "Authorization")`."""


def is_secret_name(name: str) -> bool:
    """Whether an argument or header called `name` holds a credential."""
    if name.lower() in NOT_SECRET:
        return False
    words = re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())
    return (
        not SECRET_WORDS.isdisjoint(words)
        or SECRET_TEXT.search(re.sub(r"[^a-z0-9]", "", name.lower())) is not None
    )


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
        return _revealed((), self, self._live)

    def withheld(self) -> list[str]:
        """Secrets shown by a marker without a live value (stored runs), as dotted paths."""
        return [".".join(path) for path in _secret_paths((), dict(self)) if path not in self._live]

    def secret_texts(self) -> list[str]:
        """The live secret values as text, for scrubbing provider messages: each whole, and a header's
        credential also without its scheme (`Bearer sk-…` is echoed as `sk-…` too)."""
        texts = [value if isinstance(value, str) else json.dumps(value) for value in self._live.values()]
        return [*texts, *(text.split(maxsplit=1)[1] for text in texts if len(text.split(maxsplit=1)) == 2)]

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


def _validate(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> SecretArgs:
    """Keep a `SecretArgs` (and its live values) as it is; redact anything else once it is valid."""
    return value if isinstance(value, SecretArgs) else SecretArgs(handler(value))


def _serialise(value: SecretArgs) -> dict[str, JsonValue]:
    """The redacted items, in every mode: a dump never carries a secret (copy a model to keep them)."""
    return dict(value)


def _redacted(path: ArgPath, value: JsonValue, live: dict[ArgPath, JsonValue]) -> JsonValue:
    """`value` at `path` with its secrets moved to `live` and replaced by the marker."""
    if is_secret_name(path[-1]) and value is not None:
        if value != REDACTED:
            live[path] = value
        return REDACTED
    if isinstance(value, dict):
        return {key: _redacted((*path, key), item, live) for key, item in value.items()}
    return value


def _revealed(
    path: ArgPath, items: Mapping[str, JsonValue], live: Mapping[ArgPath, JsonValue]
) -> dict[str, JsonValue]:
    """`items` at `path` with markers replaced by live values; a withheld secret's key is dropped."""
    revealed: dict[str, JsonValue] = {}
    for key, item in items.items():
        here = (*path, key)
        if here in live:
            revealed[key] = live[here]
        elif isinstance(item, dict):
            revealed[key] = _revealed(here, item, live)
        elif not (item == REDACTED and is_secret_name(key)):
            revealed[key] = item
    return revealed


def _restored(items: dict[str, JsonValue], live: dict[ArgPath, JsonValue]) -> SecretArgs:
    """`SecretArgs` from items already redacted and their live values (merging, unpickling)."""
    args = SecretArgs()
    args.update(items)
    args._live = live
    return args


def _secret_paths(path: ArgPath, value: JsonValue) -> Iterable[ArgPath]:
    """Paths of the markers standing for secrets in `value`."""
    if isinstance(value, dict):
        for key, item in value.items():
            if item == REDACTED and is_secret_name(key):
                yield (*path, key)
            else:
                yield from _secret_paths((*path, key), item)


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
