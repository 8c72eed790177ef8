"""Pieces shared by the single-control τ-bench packs (airline, retail): arithmetic, data files, canonical
hashing. Not a domain itself."""
