"""A tiny two-sided domain (a desk lamp and a support ticket) for tests and documentation."""

from domains.mock.domain import DOMAIN

__all__ = ["DOMAIN"]
