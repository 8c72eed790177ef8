"""What a credential looks like, by its name or by its value: every writer of settings redacts what these
recognise, so a key is never written whatever it is called or wherever it is given.

A name holds a credential when a credential word appears anywhere in it, in any case and with or without
separators (`api_key`, `X-Auth`, `x-amz-signature`, `SessionToken`, `bearer`); a value is one when it is
shaped like one (`Bearer …`, `Basic …`, `sk-…`, a JWT, a long random string), whatever its name.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from typing import Final

REDACTED: Final = "[redacted]"
"""What a secret's value is written as, everywhere."""

SECRET_TEXT: Final = re.compile(
    r"auth(?!or(?!i[sz]))|token(?!s|iz|ids?|count|limit|budget|type)|secret|passw(?:or)?d|passphrase"
    r"|cookie|credential|bearer|session|signature|jwt|key(?!word|board|frame|note|stroke|stone)"
)
"""Credential words, searched in a name lowercased without separators: `auth*` (but `author`), `*token*`
(but counts, limits and ids of tokens, and tokenizers), `*secret*`, `*password*`, `*cookie*`,
`*credential*`, `*bearer*`, `*session*`, `*signature*`, `*jwt*`, `*key*` (but keywords and keyboards)."""

SECRET_WORDS: Final = frozenset({"sig"})
"""Credential words that count only as a whole word (split at separators and case changes): Azure's `sig`,
not `design`."""

NOT_SECRET: Final = frozenset({"prompt_cache_key", "api_key_env"})
"""Names with a credential word that name no secret: OpenAI's cache routing key, and the setting that names
the environment variable a key is read from."""

_SCHEMES: Final = re.compile(
    r"(?:bearer|token|digest|apikey|api-key|key|ssws|negotiate|ntlm|hmac|aws4-hmac-sha256)\s+\S{8}",
    re.IGNORECASE,
)
"""An Authorization header's value: a scheme and at least eight characters of credential."""

_BASIC: Final = re.compile(r"basic\s+([A-Za-z0-9+/]+=*)", re.IGNORECASE)
"""HTTP Basic credentials: `user:password` in base64."""

_PREFIXED: Final = re.compile(
    r"(?:sk|rk|hf|gsk|ghp|gho|ghu|ghs|ghr|github_pat|glpat|xai|pplx|nvapi|csk|xox[abeoprs])[-_][\w.-]{8,}"
    r"|AIza[\w-]{20,}|AKIA[0-9A-Z]{16}|ya29\.[\w.-]{8,}"
)
"""Keys carrying their issuer's prefix: `sk-…` (OpenAI, Anthropic, DeepSeek, …), `hf_…`, `gsk_…`, GitHub's,
`xai-…`, Slack's, Google's `AIza…` and `ya29.…`, AWS access key ids."""

_JWT: Final = re.compile(r"eyJ[\w-]+\.[\w-]+\.[\w-]*")
"""A JSON Web Token: base64url header, payload and signature."""

_RANDOM_RUN: Final = re.compile(r"[A-Za-z0-9]{20,}")
"""A run of letters and digits long enough to be a generated key."""

_HEX: Final = re.compile(r"[0-9a-f]+|[0-9A-F]+")

MIN_RANDOM_BITS: Final = 3.0
"""Shannon entropy, in bits per character, from which such a run mixing letters and digits is random: a
random run of 20 letters and digits has more than 3.1, repeated or dictionary text less."""

MIN_HEX_LENGTH: Final = 32
MIN_HEX_BITS: Final = 2.5
"""A hexadecimal run counts from 32 digits (a 128-bit key; shorter ones are ids) and 2.5 bits per digit
(a random one has more than 2.7)."""


def is_secret_name(name: str) -> bool:
    """Whether an argument, header, query parameter or setting called `name` holds a credential."""
    if name.lower() in NOT_SECRET:
        return False
    words = re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())
    compact = re.sub(r"[^a-z0-9]", "", name.lower())
    return not SECRET_WORDS.isdisjoint(words) or SECRET_TEXT.search(compact) is not None


def is_secret_value(value: str) -> bool:
    """Whether text is shaped like a credential whatever it is called: an Authorization header's value
    (`Bearer …`, `Basic …`), a key with its issuer's prefix (`sk-…`), a JWT, or one token holding a long
    random run of letters and digits."""
    text = value.strip()
    if _SCHEMES.match(text) or _is_basic(text):
        return True
    if not text or any(character.isspace() for character in text):
        return False
    return (
        _PREFIXED.fullmatch(text) is not None
        or _JWT.fullmatch(text) is not None
        or any(_is_random(run) for run in _RANDOM_RUN.findall(text))
    )


def _is_basic(text: str) -> bool:
    match = _BASIC.fullmatch(text)
    if match is None:
        return False
    try:
        return b":" in base64.b64decode(match.group(1), validate=True)
    except (binascii.Error, ValueError):
        return False


def _is_random(run: str) -> bool:
    """Whether a run of letters and digits mixes both and is as varied as a generated key."""
    if not (any(c.isdigit() for c in run) and any(c.isalpha() for c in run)):
        return False
    counts = Counter(run)
    bits = -sum(count / len(run) * math.log2(count / len(run)) for count in counts.values())
    if _HEX.fullmatch(run):
        return len(run) >= MIN_HEX_LENGTH and bits >= MIN_HEX_BITS
    return bits >= MIN_RANDOM_BITS
