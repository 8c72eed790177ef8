"""Server URLs given by users: checked once, before anything is stored or retried."""

from __future__ import annotations

from urllib.parse import urlsplit


def api_base_problem(api_base: str) -> str | None:
    """Why `api_base` cannot be used, or None. One that is not an http(s) URL never answers: refuse it
    now, not after minutes of retry. One carrying credentials (`user:password@`) is refused without being
    repeated: a URL is stored with the run, a key never is."""
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
