"""User personas for the simulated customer: the built-in library, its loader and a fact lint."""

from tau2.personas.errors import PersonaError
from tau2.personas.lint import persona_fact_conflicts
from tau2.personas.loader import LIBRARY_DIR, list_personas, load_persona, load_personas
from tau2.personas.model import (
    NO_PERSONA,
    Cooperativeness,
    Persona,
    PersonaAttributes,
    TechnicalSkill,
    Verbosity,
)

__all__ = [
    "LIBRARY_DIR",
    "NO_PERSONA",
    "Cooperativeness",
    "Persona",
    "PersonaAttributes",
    "PersonaError",
    "TechnicalSkill",
    "Verbosity",
    "list_personas",
    "load_persona",
    "load_personas",
    "persona_fact_conflicts",
]
