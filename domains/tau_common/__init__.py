"""Pieces shared by the τ-bench packs (airline, retail, banking): arithmetic, data files, canonical hashing,
data patches. Not a domain itself."""
