"""The one registry mechanism (`tau2._registry`) and the three registries built on it: domains, actor kinds
and catalog extensions, each found by registration, decorator, entry point, or reference (`module:attribute`,
or `path/to/file.py:attribute`)."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import tau2._registry
from tau2._registry import Registry, allow_reference, declare_plugin, is_reference
from tau2.actors import (
    Actor,
    ActorKind,
    ActorSpec,
    ModelUse,
    actor_kind,
    make_actor,
    pairing_warning,
    register_actor,
)
from tau2.episode import Mode
from tau2.errors import UnknownDomainError, UserInputError
from tau2.tasks import (
    Domain,
    Suite,
    available_domains,
    domain_name,
    get_domain,
    register_domain,
    resolve_catalog_extension,
)
from tau2.tau2bench import load_task_file
from tau2.world import Side

MOCK = get_domain("mock")


def accept_int(name: str, loaded: object) -> int:
    if not isinstance(loaded, int):
        raise UserInputError(f"number {name!r} names a {type(loaded).__name__}")
    return loaded


def unknown(name: str, names: list[str]) -> UserInputError:
    return UserInputError(f"unknown number {name!r} (known: {', '.join(names)})")


@pytest.fixture
def numbers() -> Registry[int]:
    """A registry of integers whose installed entries are given by hand (no package is installed)."""
    registry = Registry("number", "number", accept_int, unknown)
    registry.installed = {  # what entry_points() would have listed
        "answer": EntryPoint("answer", f"{__name__}:ANSWER", "tau2.test-numbers"),
        "broken": EntryPoint("broken", "no_such_module_here:X", "tau2.test-numbers"),
    }
    return registry


ANSWER = 42
NOT_A_NUMBER = "forty-two"


@pytest.fixture
def module_on_path(tmp_path: Path) -> Iterator[Path]:
    """`tmp_path` on the import path, for modules a test writes there."""
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


# The mechanism


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pkg:ATTR", True),
        ("a.b.c:d.e", True),
        ("telecom", False),
        ("a:", False),
        (":b", False),
        ("C:\\x", False),
        ("my_actors.py:KIND", True),
        ("sub/dir/my actors.py:a.b", True),
        ("/abs/path/x.py:K", True),
        ("x.py:", False),
        ("dir/x.txt:K", False),
    ],
)
def test_a_reference_is_module_colon_attribute_or_file_colon_attribute(name: str, expected: bool) -> None:
    assert is_reference(name) is expected


NUMBERS_FILE = """
from pathlib import Path

Path(__file__).with_suffix(".runs").open("a").write("ran\\n")
VALUE = 7


class Box:
    INNER = 8
"""


def test_a_python_file_is_referenced_by_its_path_without_the_import_path(
    numbers: Registry[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "my plugins"
    folder.mkdir()
    (folder / "numbers_here.py").write_text(NUMBERS_FILE)
    monkeypatch.chdir(tmp_path)
    assert numbers.get("my plugins/numbers_here.py:VALUE") == 7, "relative to the current folder"
    assert numbers.get("my plugins/numbers_here.py:Box.INNER") == 8, "a dotted attribute"
    assert numbers.get(f"{folder / 'numbers_here.py'}:VALUE") == 7, "an absolute path"
    assert numbers.get("./my plugins/../my plugins/numbers_here.py:VALUE") == 7
    assert (folder / "numbers_here.runs").read_text() == "ran\n", "one file runs once, however spelled"
    assert "numbers_here" not in sys.modules, "nothing is put on the import path"


def test_a_file_reference_that_fails_is_one_line(
    numbers: Registry[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "numbers_here.py").write_text(NUMBERS_FILE)
    (tmp_path / "broken_here.py").write_text("raise RuntimeError('the plugin is broken')\n")
    failures = {
        "absent.py:VALUE": "FileNotFoundError: no file absent.py",
        "numbers_here.py:MISSING": "AttributeError: numbers_here.py has no attribute 'MISSING'",
        "broken_here.py:VALUE": "RuntimeError: the plugin is broken",
        "numbers_here:VALUE": (
            "ModuleNotFoundError: No module named 'numbers_here' on the Python path; "
            "the file numbers_here.py is named as numbers_here.py:VALUE"
        ),
    }
    for name, reason in failures.items():
        with pytest.raises(UserInputError) as failed:
            numbers.get(name)
        assert str(failed.value) == f"number {name!r} could not be loaded: {reason}"
    (tmp_path / "broken_here.py").write_text("VALUE = 9\n")
    assert numbers.get("broken_here.py:VALUE") == 9, "a file that failed is run again once mended"


def test_entries_come_from_code_builders_entry_points_and_references(numbers: Registry[int]) -> None:
    built: list[str] = []
    numbers.register("one", 1)
    numbers.register_builder("two", lambda: built.append("two") or 2)
    assert numbers.names() == ["answer", "broken", "one", "two"]
    assert built == []  # a builder runs on first use only
    assert (numbers.get("one"), numbers.get("two"), numbers.get("two")) == (1, 2, 2)
    assert built == ["two"]
    assert numbers.get("answer") == 42
    assert numbers.get(f"{__name__}:ANSWER") == 42
    assert f"{__name__}:ANSWER" not in numbers.names()  # a reference names itself, unlisted
    numbers.register("one", 11)
    assert numbers.get("one") == 11  # a later registration replaces


def test_what_fails_to_load_is_one_line_naming_it(numbers: Registry[int]) -> None:
    with pytest.raises(UserInputError) as broken:
        numbers.get("broken")
    assert str(broken.value) == (
        "number 'broken' (no_such_module_here:X) could not be loaded: "
        "ModuleNotFoundError: No module named 'no_such_module_here'"
    )
    with pytest.raises(UserInputError, match=rf"^number '{__name__}:NOT_A_NUMBER' names a str$"):
        numbers.get(f"{__name__}:NOT_A_NUMBER")
    with pytest.raises(
        UserInputError, match=rf"^number '{__name__}:MISSING' could not be loaded: AttributeError"
    ):
        numbers.get(f"{__name__}:MISSING")
    numbers.register_builder("bad", lambda: 1 / 0)
    with pytest.raises(UserInputError, match=r"^number 'bad' could not be loaded: ZeroDivisionError: "):
        numbers.get("bad")
    with pytest.raises(UserInputError, match=r"^unknown number 'seven' \(known: answer, bad, broken\)$"):
        numbers.get("seven")


def installed_dist(site: Path, name: str, entry_points: str) -> None:
    """A distribution's metadata written by hand into `site` (a folder then put on the import path)."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)


def test_installed_entries_are_kind_dot_name_in_the_one_group_and_the_old_group_still_reads(
    module_on_path: Path,
) -> None:
    installed_dist(
        module_on_path,
        "numbers_pack",
        f"[tau2.plugins]\nnumber.answer = {__name__}:ANSWER\nword.answer = {__name__}:NOT_A_NUMBER\n"
        f"[tau2.test_numbers]\nold = {__name__}:ANSWER\nanswer = no_such_module_here:X\n",
    )
    registry = Registry("number", "number", accept_int, unknown, legacy_group="tau2.test_numbers")
    with pytest.warns(DeprecationWarning, match=r"number 'old' is installed under the entry-point group "):
        assert registry.names() == ["answer", "old"], "another kind's entries are not this kind's"
    assert registry.get("answer") == 42, "the one group's entry wins over the old group's"
    assert registry.get("old") == 42
    assert Registry("number", "number", accept_int, unknown).names() == ["answer"]


def test_a_kind_is_a_word_never_a_group(numbers: Registry[int]) -> None:
    with pytest.raises(ValueError, match=r"plugin kind 'tau2\.numbers'"):
        Registry("number", "tau2.numbers", accept_int, unknown)


def test_a_declared_plugin_is_found_by_its_name_while_it_is_declared(
    numbers: Registry[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "numbers_here.py").write_text(NUMBERS_FILE)
    monkeypatch.chdir(tmp_path)
    declare_plugin("number.seven=numbers_here.py:VALUE")
    declare_plugin("word.seven=numbers_here.py:Box")
    assert "seven" in numbers.names() and numbers.get("seven") == 7
    assert Registry("number", "number", accept_int, unknown).all() == [7], "what runs every entry runs it"
    with pytest.raises(UserInputError, match=r"^--plugin number\.eight: not KIND\.NAME=REFERENCE"):
        declare_plugin("number.eight")
    with pytest.raises(UserInputError, match=r"^--plugin number\.eight=eight: not KIND\.NAME=REFERENCE"):
        declare_plugin("number.eight=eight")
    monkeypatch.setattr(tau2._registry, "_DECLARED", {})
    assert "seven" not in numbers.names(), "a declaration is the process's, not the registry's"


# Domains


def test_a_domain_is_found_by_reference_and_then_by_its_own_name(module_on_path: Path) -> None:
    (module_on_path / "shelf_domain.py").write_text(
        "import dataclasses\nfrom tau2.tasks import get_domain\n"
        "DOMAIN = dataclasses.replace(get_domain('mock'), name='shelf')\n"
    )
    assert "shelf" not in available_domains()
    shelf = get_domain("shelf_domain:DOMAIN")
    assert shelf.name == "shelf" and get_domain("shelf") is shelf
    assert domain_name("shelf_domain:DOMAIN") == "shelf" and domain_name("telecom") == "telecom"


def test_a_domain_is_found_by_a_file_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "drawer_domain.py").write_text(
        "import dataclasses\nfrom tau2.tasks import get_domain\n"
        "DOMAIN = dataclasses.replace(get_domain('mock'), name='drawer')\n"
    )
    monkeypatch.chdir(tmp_path)
    drawer = get_domain("drawer_domain.py:DOMAIN")
    assert drawer.name == "drawer" and get_domain("drawer") is drawer
    assert domain_name("drawer_domain.py:DOMAIN") == "drawer"


def test_the_decorator_registers_a_domain_built_on_first_use() -> None:
    built: list[Domain] = []

    @register_domain("lazy-lamp")
    def lazy_lamp() -> Domain:
        built.append(dataclasses.replace(MOCK, name="lazy-lamp"))
        return built[-1]

    assert "lazy-lamp" in available_domains() and built == []
    assert get_domain("lazy-lamp") is built[0]
    assert get_domain("lazy-lamp") is built[0] and len(built) == 1

    @register_domain("misnamed")
    def misnamed() -> Domain:
        return MOCK

    with pytest.raises(UserInputError, match="the builder registered as 'misnamed' built domain 'mock'"):
        get_domain("misnamed")


def test_register_domain_returns_what_it_registers() -> None:
    lamp = dataclasses.replace(MOCK, name="returned-lamp")
    assert register_domain(lamp) is lamp and get_domain("returned-lamp") is lamp


def test_a_domain_reference_that_fails_is_one_line() -> None:
    with pytest.raises(UserInputError, match=r"^domain 'no_such_pack:DOMAIN' could not be loaded: Module"):
        get_domain("no_such_pack:DOMAIN")
    with pytest.raises(UserInputError, match=r"^domain 'json:dumps' names a function, not a tau2 Domain$"):
        get_domain("json:dumps")
    with pytest.raises(
        UnknownDomainError, match=r"a pack that is not installed is named as module:attribute"
    ):
        get_domain("atlantis")


def test_a_suite_read_for_a_reference_to_its_domain_names_the_reference(
    module_on_path: Path, suite_file: Path
) -> None:
    (module_on_path / "lamp_alias.py").write_text(
        "from tau2.tasks import get_domain\nDOMAIN = get_domain('mock')\n"
    )
    tasks = load_task_file(suite_file, "lamp_alias:DOMAIN")
    assert tasks and {task.domain for task in tasks} == {"lamp_alias:DOMAIN"}
    assert {task.id for task in tasks} == {task.id for task in load_task_file(suite_file)}
    with pytest.raises(UserInputError, match=r"the suite is for 'mock', not 'tau2.domains.telecom:DOMAIN'"):
        load_task_file(suite_file, "tau2.domains.telecom:DOMAIN")


def test_a_suite_may_name_its_domain_by_a_reference_the_user_named(tmp_path: Path) -> None:
    suite = Suite.model_validate(json.loads((Path(MOCK.default_suite or "")).read_text()))
    referenced = [task.model_copy(update={"domain": "tau2.domains.mock:DOMAIN"}) for task in suite.tasks]
    path = tmp_path / "referenced.json"
    suite.model_copy(update={"domain": "tau2.domains.mock:DOMAIN", "tasks": referenced}).save(path)
    with pytest.raises(UserInputError, match="names a domain by module:attribute, and tau2 never imports"):
        load_task_file(path)
    allow_reference("tau2.domains.mock:DOMAIN")
    assert {get_domain(task.domain).name for task in load_task_file(path)} == {"mock"}


# Actor kinds


def test_the_decorator_registers_a_factory_as_a_kind() -> None:
    @register_actor("echo-agent", Side.AGENT, description="repeats the oracle")
    def echo(spec: ActorSpec, mode: Mode) -> Actor:
        return make_actor(ActorSpec(kind="oracle"), Side.AGENT, mode)

    kind = actor_kind("echo-agent")
    assert (
        kind.seats == {Side.AGENT}
        and kind.model is ModelUse.NONE
        and kind.description == "repeats the oracle"
    )
    assert make_actor(ActorSpec(kind="echo-agent"), Side.AGENT) is not None
    with pytest.raises(UserInputError, match="is for the agent seat"):
        make_actor(ActorSpec(kind="echo-agent"), Side.USER)


def test_register_actor_returns_the_kind_it_registers() -> None:
    def scripted(spec: ActorSpec, mode: Mode) -> Actor:
        return make_actor(ActorSpec(kind="scripted"), Side.USER, mode)

    kind = ActorKind("returned-kind", {Side.USER: scripted})
    assert register_actor(kind) is kind and actor_kind("returned-kind") is kind


def test_a_kind_that_names_its_partner_vouches_for_the_pair() -> None:
    def oracle(spec: ActorSpec, mode: Mode) -> Actor:
        return make_actor(ActorSpec(kind="oracle"), Side.AGENT, mode)

    agent = ActorSpec(kind="speaks-requests")
    register_actor(ActorKind("speaks-requests", {Side.AGENT: oracle}))
    assert pairing_warning(agent, ActorSpec(kind="scripted")) is not None  # scripted lists its partners
    register_actor(ActorKind("speaks-requests", {Side.AGENT: oracle}, pairs_with=frozenset({"scripted"})))
    assert pairing_warning(agent, ActorSpec(kind="scripted")) is None


# Catalog extensions


def test_a_catalog_extension_can_be_named_by_reference(module_on_path: Path) -> None:
    faults = module_on_path / "faults.toml"
    faults.write_text("name = 'x'\n")
    (module_on_path / "faults_pack.py").write_text(
        "from pathlib import Path\nFAULTS = Path(__file__).with_name('faults.toml')\nNUMBERS = [3]\n"
    )
    path, origin = resolve_catalog_extension("faults_pack:FAULTS")
    assert path == faults and origin == f"faults_pack:FAULTS ({faults})"
    with pytest.raises(
        UserInputError, match=r"^catalog extension 'faults_pack:NUMBERS' names a list, not a path$"
    ):
        resolve_catalog_extension("faults_pack:NUMBERS")
