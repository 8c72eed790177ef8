"""Tests of the persona library, its loader, its one-line errors and the personal-fact lint."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tau2.personas import (
    LIBRARY_DIR,
    NO_PERSONA,
    Cooperativeness,
    Persona,
    PersonaAttributes,
    PersonaError,
    TechnicalSkill,
    Verbosity,
    list_personas,
    load_persona,
    load_personas,
    persona_fact_conflicts,
)

SHIPPED = ["easy", "false_reporter", "hard", "impatient_expert", "limited_english", "none"]

VALID = """\
name = "sample"
label = "Sample"
description = "You answer briefly and do each step the agent asks for."

[attributes]
occupation = "gardener"
technical_skill = "low"
temperament = "calm"
verbosity = "terse"
cooperativeness = "high"
"""


def _write(directory: Path, text: str, stem: str = "sample") -> Path:
    """Write a persona file into a test directory and return its path."""
    path = directory / f"{stem}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _error_for(path: Path) -> PersonaError:
    """Load a file expected to be invalid and return the error it raises."""
    with pytest.raises(PersonaError) as caught:
        load_persona(path)
    return caught.value


# --- the shipped library ---------------------------------------------------------------------


def test_library_lists_the_shipped_personas() -> None:
    assert list_personas() == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_persona_loads_cleanly(name: str) -> None:
    persona = load_persona(name)
    assert persona.name == name
    assert persona.summary
    assert persona_fact_conflicts(persona) == []


@pytest.mark.parametrize("name", [n for n in SHIPPED if n != NO_PERSONA])
def test_shipped_descriptions_are_one_paragraph_of_80_to_200_words(name: str) -> None:
    persona = load_persona(name)
    assert persona.prompt_text == persona.description
    assert 80 <= len(persona.description.split()) <= 200
    assert "\n" not in persona.description
    assert "  " not in persona.description
    assert persona.attributes is not None


def test_tau2_bench_labels_map_to_their_names() -> None:
    labels = {load_persona(name).label: name for name in list_personas()}
    assert labels["None"] == "none"
    assert labels["Easy"] == "easy"
    assert labels["Hard"] == "hard"


def test_shipped_labels_are_unique() -> None:
    personas = load_personas(list_personas())
    assert len({persona.label for persona in personas}) == len(SHIPPED)


def test_none_persona_adds_no_text_and_no_traits() -> None:
    persona = load_persona("none")
    assert persona.prompt_text is None
    assert persona.attributes is None


@pytest.mark.parametrize(
    ("name", "occupation", "skill", "verbosity", "cooperativeness"),
    [
        ("easy", "office administrator", TechnicalSkill.AVERAGE, Verbosity.VERBOSE, "high"),
        ("hard", "retired librarian", TechnicalSkill.LOW, Verbosity.NORMAL, "medium"),
        ("impatient_expert", "IT systems administrator", "expert", Verbosity.TERSE, "low"),
        ("limited_english", "restaurant cook", "average", Verbosity.TERSE, "high"),
        ("false_reporter", "sales representative", "average", "normal", "medium"),
    ],
)
def test_shipped_attribute_profiles(
    name: str, occupation: str, skill: str, verbosity: str, cooperativeness: str
) -> None:
    attributes = load_persona(name).attributes
    assert attributes is not None
    assert attributes.occupation == occupation
    assert attributes.technical_skill == skill
    assert attributes.verbosity == verbosity
    assert attributes.cooperativeness == cooperativeness


def test_attribute_enums_have_the_documented_values() -> None:
    assert [s.value for s in TechnicalSkill] == ["none", "low", "average", "high", "expert"]
    assert [v.value for v in Verbosity] == ["terse", "normal", "verbose"]
    assert [c.value for c in Cooperativeness] == ["low", "medium", "high"]


# --- loading by name and by path ---------------------------------------------------------------


def test_load_by_path_string_and_path_object() -> None:
    path = LIBRARY_DIR / "easy.toml"
    assert load_persona(str(path)) == load_persona(path) == load_persona("easy")


def test_load_user_file(tmp_path: Path) -> None:
    persona = load_persona(_write(tmp_path, VALID))
    assert persona.label == "Sample"
    assert persona.attributes == PersonaAttributes(
        occupation="gardener",
        technical_skill=TechnicalSkill.LOW,
        temperament="calm",
        verbosity=Verbosity.TERSE,
        cooperativeness=Cooperativeness.HIGH,
    )


def test_unknown_name_lists_available_personas() -> None:
    with pytest.raises(PersonaError) as caught:
        load_persona("grumpy")
    message = str(caught.value)
    assert message.startswith("'grumpy': unknown persona; available: easy, false_reporter, hard")
    assert "\n" not in message


def test_load_personas_keeps_order_and_rejects_duplicate_labels(tmp_path: Path) -> None:
    assert [p.name for p in load_personas(["hard", "none"])] == ["hard", "none"]
    clash = _write(tmp_path, VALID.replace('"Sample"', '"Easy"'))
    with pytest.raises(PersonaError) as caught:
        load_personas(["easy", clash])
    assert caught.value.field == "label"
    assert str(caught.value) == (f"{clash}: label: 'Easy' is already used by personas/library/easy.toml")


def test_persona_error_is_a_value_error() -> None:
    assert issubclass(PersonaError, ValueError)


# --- one-line errors naming the file and the field ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "field", "detail"),
    [
        (VALID.replace('label = "Sample"\n', ""), "label", "missing required field"),
        (VALID + "age = 41\n", "attributes.age", "unknown field"),
        ("age = 41\n" + VALID, "age", "unknown field"),
        (
            VALID.replace('"terse"', '"chatty"'),
            "attributes.verbosity",
            "must be one of terse, normal, verbose (got 'chatty')",
        ),
        (
            VALID.replace('technical_skill = "low"', 'technical_skill = "guru"'),
            "attributes.technical_skill",
            "must be one of none, low, average, high, expert (got 'guru')",
        ),
        (
            VALID.replace('cooperativeness = "high"', 'cooperativeness = "total"'),
            "attributes.cooperativeness",
            "must be one of low, medium, high (got 'total')",
        ),
        (
            VALID.replace('"You answer briefly and do each step the agent asks for."', '"   "'),
            "description",
            "must not be empty",
        ),
        (
            VALID.replace('description = "You answer briefly and do each step the agent asks for."\n', ""),
            "description",
            "must not be empty",
        ),
        (
            VALID.split("\n[attributes]")[0],
            "attributes",
            "missing required table",
        ),
        (VALID.replace('"Sample"', '"Sam[ple]"'), "label", "must be a CamelCase token"),
        (VALID.replace('"Sample"', '"sample"'), "label", "must be a CamelCase token"),
        (VALID.replace('label = "Sample"', "label = 3"), "label", "must be a string"),
        (
            VALID.replace('occupation = "gardener"', 'occupation = ""'),
            "attributes.occupation",
            "must not be empty",
        ),
        (
            VALID.replace('temperament = "calm"', f'temperament = "{"very " * 10}calm"'),
            "attributes.temperament",
            "must be at most 40 characters",
        ),
        (
            VALID.replace('label = "Sample"', 'label = "Sample"\nsummary = """one\ntwo"""'),
            "summary",
            "must be a single line",
        ),
        (
            VALID.replace("[attributes]", 'attributes = "many"\n[other]'),
            "attributes",
            "must be a table",
        ),
    ],
)
def test_invalid_fields_give_one_line_errors(tmp_path: Path, text: str, field: str, detail: str) -> None:
    path = _write(tmp_path, text)
    error = _error_for(path)
    message = str(error)
    assert "\n" not in message
    assert error.field == field
    assert message.startswith(f"{path}: {field}: {detail}")


def test_several_problems_share_one_line(tmp_path: Path) -> None:
    text = VALID.replace('label = "Sample"\n', "").replace('"terse"', '"chatty"')
    message = str(_error_for(_write(tmp_path, text)))
    assert "\n" not in message
    assert ": label: missing required field; attributes.verbosity: must be one of" in message


def test_name_must_equal_file_stem(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID, stem="other")
    assert str(_error_for(path)) == f"{path}: name: must equal the file stem 'other' (got 'sample')"


def test_name_must_be_snake_case(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace('name = "sample"', 'name = "Sample-1"'), stem="Sample-1")
    assert str(_error_for(path)).startswith(f"{path}: name: must be snake_case")


def test_none_persona_must_not_carry_text_or_traits(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace('name = "sample"', 'name = "none"'), stem="none")
    message = str(_error_for(path))
    assert message == (
        f"{path}: description: must be empty for the none persona; "
        "attributes: must be absent for the none persona"
    )


def test_toml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, 'name = "sample"\nlabel "Sample"\n')
    message = str(_error_for(path))
    assert message.startswith(f"{path}: line 2, column 7: invalid TOML: ")
    assert "\n" not in message


def test_toml_error_at_end_of_document(tmp_path: Path) -> None:
    path = _write(tmp_path, 'name = "sample')
    assert str(_error_for(path)).startswith(f"{path}: ")
    assert "invalid TOML" in str(_error_for(path))


@pytest.mark.parametrize(
    ("file_name", "content", "detail"),
    [
        ("missing.toml", None, "no such file"),
        ("sample.txt", VALID.encode(), "not a .toml file"),
        ("sample.toml", b'name = "\xff"\n', "not valid UTF-8 text"),
    ],
)
def test_unreadable_files(tmp_path: Path, file_name: str, content: bytes | None, detail: str) -> None:
    path = tmp_path / file_name
    if content is not None:
        path.write_bytes(content)
    assert str(_error_for(path)) == f"{path}: {detail}"


# --- the model -------------------------------------------------------------------------------


def test_persona_is_frozen() -> None:
    persona = load_persona("easy")
    with pytest.raises(ValidationError):
        persona.label = "Other"  # type: ignore[misc]


def test_surrounding_whitespace_is_stripped(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace('"gardener"', '"  gardener \\n"'))
    attributes = load_persona(path).attributes
    assert attributes is not None
    assert attributes.occupation == "gardener"


_ONE_LINE = st.text(
    alphabet=st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda text: text.strip() == text and text != "")
_ATTRIBUTES = st.builds(
    PersonaAttributes,
    occupation=_ONE_LINE,
    technical_skill=st.sampled_from(TechnicalSkill),
    temperament=_ONE_LINE,
    verbosity=st.sampled_from(Verbosity),
    cooperativeness=st.sampled_from(Cooperativeness),
)
_NAMED = st.builds(
    Persona,
    name=st.from_regex(r"[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,4}){0,2}", fullmatch=True).filter(
        lambda name: name != NO_PERSONA
    ),
    label=st.from_regex(r"[A-Z][A-Za-z0-9]{0,12}", fullmatch=True),
    summary=st.none() | _ONE_LINE,
    description=st.text(min_size=1).map(str.strip).filter(bool),
    attributes=_ATTRIBUTES,
)
_NONE = st.builds(
    Persona,
    name=st.just(NO_PERSONA),
    label=st.from_regex(r"[A-Z][A-Za-z0-9]{0,12}", fullmatch=True),
    summary=st.none() | _ONE_LINE,
)


@given(_NAMED | _NONE)
def test_persona_round_trips_through_model_dump(persona: Persona) -> None:
    assert Persona.model_validate(persona.model_dump()) == persona
    assert Persona.model_validate(persona.model_dump(mode="json")) == persona


# --- the personal-fact lint -----------------------------------------------------------------


def _with_text(description: str) -> Persona:
    """A valid persona whose description is the text under test."""
    return load_persona("easy").model_copy(update={"description": description})


@pytest.mark.parametrize(
    ("text", "kind", "quoted"),
    [
        ("You are 64 years old and tired.", "age", "64 years old"),
        ("A 41-year-old office worker.", "age", "41-year-old"),
        ("You are aged 41.", "age", "aged 41"),
        ("Age: 52, patient.", "age", "Age: 52"),
        ("You are in her 60s.", "age", "in her 60s"),
        ("Someone in their late fifties.", "age", "in their late fifties"),
        ("You are sixty-four years old.", "age", "sixty-four years old"),
        ("You just turned 40 last week.", "age", "turned 40"),
        ("A cheerful septuagenarian.", "age", "septuagenarian"),
        ("You are a 30-something.", "age", "30-something"),
        ("You were born in 1985 in a small town.", "birth year", "born in 1985"),
        ("You were born in the sixties.", "birth year", "born in the sixties"),
        ("Your birthday is coming up.", "birth detail", "birthday"),
        ("Your contract ends on 2025-03-31.", "date", "2025-03-31"),
        ("Since 06/15/1985 nothing worked.", "date", "06/15/1985"),
        ("You were hired on June 15, 1985.", "date", "June 15, 1985"),
        ("It broke on the 3rd of March.", "date", "3rd of March"),
        ("It started in March 2024.", "date", "March 2024"),
        ("You got the phone in 2019.", "year", "2019"),
        ("Your number is 555-123-2002.", "phone number", "555-123-2002"),
        ("Call back on (555) 123-2002 please.", "phone number", "(555) 123-2002"),
        ("Your office line is +44 20 7946 0958.", "phone number", "+44 20 7946 0958"),
        ("Reach you at 123-4567.", "phone number", "123-4567"),
        ("Write to john.smith@example.com today.", "email address", "john.smith@example.com"),
        ("Use your card ending in 4242.", "payment detail", "card ending in 4242"),
        ("You are Margaret, a kind soul.", "person name", "You are Margaret"),
        ("Your daughter Emma set it up.", "person name", "daughter Emma"),
        ("Ask for Mrs. Patel at the desk.", "person name", "Mrs. Patel"),
        ("A friend named Oskar helps.", "person name", "named Oskar"),
        ("You live in Texas with a cat.", "location", "live in Texas"),
        ("You are abroad for work.", "location", "abroad"),
        ("You are always traveling.", "location", "traveling"),
        ("Mail goes to 12 Elm Street.", "street address", "12 Elm Street"),
        ("You use an iPhone for everything.", "device model", "iPhone"),
        ("A grumpy 64 y/o customer.", "age", "64 y/o"),
        ("A cheerful centenarian.", "age", "centenarian"),
        ("Your year of birth is 1970.", "birth year", "year of birth is 1970"),
        ("Your DOB is on file.", "birth detail", "DOB"),
        ("I am Rosalind and I need help.", "person name", "I am Rosalind"),
        ("Everyone knows you; you go by Sam.", "person name", "go by Sam"),
        ("You recently moved to Denver.", "location", "moved to Denver"),
        ("You are on vacation this week.", "location", "on vacation"),
        ("Your account number ends with 1234.", "payment detail", "account number ends with 1234"),
    ],
)
def test_lint_flags_planted_facts(text: str, kind: str, quoted: str) -> None:
    findings = persona_fact_conflicts(_with_text(text))
    assert [f for f in findings if f.startswith(f'description: {kind} "{quoted}" could contradict')]


@pytest.mark.parametrize(
    "text",
    [
        "You have used the same phone for years and refuel 2.0 GB when needed.",
        "Your phone shows 5G or 4G; you wait 10 minutes between steps.",
        "You turned 2 settings off and turned 10 minutes into an hour.",
        "You average three calls a day and speak to your manager often.",
        "You open Settings, then Mobile Data, then Airplane Mode.",
        "You are stubborn about the Wi-Fi Calling option and stay calm.",
        "In May you may need help; you are a patient person named in no record.",
    ],
)
def test_lint_ignores_ordinary_support_talk(text: str) -> None:
    assert persona_fact_conflicts(_with_text(text)) == []


def test_lint_reports_each_span_once_in_reading_order() -> None:
    findings = persona_fact_conflicts(_with_text("Born June 15, 1985, email a@b.io, age 39."))
    assert findings == [
        'description: birth detail "Born" could contradict the customer\'s date of birth',
        'description: date "June 15, 1985" could contradict dates in the customer\'s record',
        'description: email address "a@b.io" could contradict the customer\'s email',
        'description: age "age 39" could contradict the customer\'s date of birth',
    ]


def test_lint_checks_summary_and_attributes() -> None:
    persona = load_persona("easy")
    attributes = persona.attributes
    assert attributes is not None
    planted = persona.model_copy(
        update={
            "summary": "Retired at 65 years old.",
            "attributes": attributes.model_copy(update={"occupation": "teacher in Ohio since 1990"}),
        }
    )
    findings = persona_fact_conflicts(planted)
    assert [finding.split(":")[0] for finding in findings] == ["summary", "attributes.occupation"]
