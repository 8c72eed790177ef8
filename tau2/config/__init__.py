"""The configuration of a run, one typed model per concept, each setting and its default declared once: a
model (`ModelSpec`), a seat (`ActorSpec`), the episode (`EpisodeSettings`, `EpisodeConfig`) with its
retrieval configuration (`RetrievalConfig`, `EmbedderConfig`), the executor (`ExecutorConfig`) and the run
(`RunConfig`), which TOML files, command-line options and run manifests all hold (an experiment's
configuration, `tau2.experiments.ExperimentConfig`, builds on them); and the layering of settings given in
several places into one configuration."""

from tau2.config._fields import field_docs, ordered_fields
from tau2.config._layers import ConfigLayer, FieldPath, dotted, layered, settings, source
from tau2.config._run import (
    EXECUTION_SETTINGS,
    MAX_TRIALS,
    MAX_WORKERS,
    PATH_FIELDS,
    RECORDED,
    ExecutorConfig,
    ExecutorKind,
    RunConfig,
)
from tau2.config._toml import read_toml
from tau2.episode import ActorSpec, EpisodeConfig, EpisodeSettings, Mode
from tau2.llm import ModelSpec, ProviderLimit, TransportChoice
from tau2.world import EmbedderConfig, RetrievalConfig

__all__ = [
    "EXECUTION_SETTINGS",
    "MAX_TRIALS",
    "MAX_WORKERS",
    "PATH_FIELDS",
    "RECORDED",
    "ActorSpec",
    "ConfigLayer",
    "EmbedderConfig",
    "EpisodeConfig",
    "EpisodeSettings",
    "ExecutorConfig",
    "ExecutorKind",
    "FieldPath",
    "Mode",
    "ModelSpec",
    "ProviderLimit",
    "RetrievalConfig",
    "RunConfig",
    "TransportChoice",
    "dotted",
    "field_docs",
    "layered",
    "ordered_fields",
    "read_toml",
    "settings",
    "source",
]
