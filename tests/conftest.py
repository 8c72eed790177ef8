"""Shared pytest setup: keep litellm offline by making it use its bundled model cost map."""

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
