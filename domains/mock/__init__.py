"""A tiny two-sided domain (a desk lamp and a support ticket) for tests and documentation."""

from tau2.domains.mock.domain import DOMAIN

__all__ = ["DOMAIN"]
