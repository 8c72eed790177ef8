"""Server URLs given by users: checked once, before anything is stored or retried; their credentials told
apart from the rest, so what is written shows the server but never a key."""

from __future__ import annotations

from urllib.parse import unquote_plus, urlsplit, urlunsplit

from tau2._credentials import REDACTED, is_secret_name, is_secret_value


def api_base_problem(api_base: str) -> str | None:
    """Why `api_base` cannot be used, or None. One that is not an http(s) URL never answers: refuse it
    now, not after minutes of retry. One carrying credentials (`user:password@`) is refused without being
    repeated: give the key as api_key (a key in the query is redacted wherever the URL is written)."""
    try:
        parts = urlsplit(api_base)
        hostname = parts.hostname
    except ValueError as error:  # e.g. a malformed IPv6 address or port
        return f"not a URL ({error})"
    if "@" in parts.netloc:
        return (
            "credentials in the URL are not accepted (the URL is stored with the run); "
            "give the key as api_key, or in the provider's environment variable"
        )
    if parts.scheme not in ("http", "https") or not hostname:
        shown = "the value" if "@" in api_base else repr(api_base)  # it may hold a password
        return f"{shown} is not an http:// or https:// URL"
    return None


def is_url(text: str) -> bool:
    """Whether `text` reads as an absolute URL (`scheme://…`), whose parts may hold credentials."""
    scheme, separator, _ = text.partition("://")
    return bool(separator) and scheme.isascii() and scheme.isalpha()


def url_secrets(url: str) -> list[str]:
    """The credentials `url` holds, as written in it: the value of each query (or fragment) parameter named
    or shaped like a credential (`?api-key=…`, `?sig=…`) and each path segment shaped like one (`/bot…/`);
    a URL with user information (`user:password@`), or one too malformed to read, is one whole."""
    return _split(url)[1]


def redacted_url(url: str) -> str:
    """`url` with each of its credentials (`url_secrets`) replaced by the redaction marker: the server,
    path and other parameters stay readable, and an unchanged URL held none."""
    return _split(url)[0]


def _split(url: str) -> tuple[str, list[str]]:
    """`url` with its credentials redacted, and the credentials taken out."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed host: nothing of it can be told apart, so none of it is shown
        return REDACTED, [url]
    if "@" in parts.netloc:  # no marker fits in a host part that stays readable
        return REDACTED, [url]
    found: list[str] = []
    path = "/".join(_value(segment, found) for segment in parts.path.split("/"))
    query = _parameters(parts.query, found)
    fragment = _parameters(parts.fragment, found)
    if not found:
        return url, []
    return urlunsplit((parts.scheme, parts.netloc, path, query, fragment)), found


def _parameters(text: str, found: list[str]) -> str:
    """`name=value&…` with each credential's value redacted (a bare value judged by its shape alone)."""
    shown = []
    for parameter in text.split("&") if text else []:
        name, equals, value = parameter.partition("=")
        if not equals:
            shown.append(_value(parameter, found))
        elif value and value != REDACTED and is_secret_name(unquote_plus(name)):
            found.append(value)
            shown.append(f"{name}={REDACTED}")
        else:
            shown.append(f"{name}={_value(value, found)}")
    return "&".join(shown)


def _value(text: str, found: list[str]) -> str:
    """`text` (a path segment or parameter value as written), or the marker when it is shaped like a
    credential."""
    if text and is_secret_value(unquote_plus(text)):
        found.append(text)
        return REDACTED
    return text
