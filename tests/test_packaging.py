"""Packaging without links: the top-level folders install under `tau2` through pyproject's package
mapping, git tracks no symbolic link, and the sdist carries every folder so the quickstart and the tests run
from it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
BUILD_SDIST = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
SDIST_TESTS = (
    "tests/test_world_core.py",
    "tests/test_personas.py",
    "tests/generator/test_generator_suites.py",
)
SDIST_FOLDERS = ("tau2", "domains", "generator", "personas", "docs", "tests", "benchmarks")


def mapped_packages() -> set[str]:
    """Every folder below the mapped roots, named as it is imported (data folders included)."""
    found: set[str] = set()
    for name, folder in SETUPTOOLS["package-dir"].items():
        root = ROOT / folder
        for directory in [root, *(path for path in root.rglob("*") if path.is_dir())]:
            relative = directory.relative_to(root)
            if "__pycache__" not in relative.parts:
                found.add(".".join([name, *relative.parts]))
    return found


def test_git_tracks_no_symbolic_link() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist): nothing is tracked")
    listing = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    links = [line.split("\t", 1)[1] for line in listing.splitlines() if line.startswith("120000 ")]
    assert links == []


def test_every_folder_of_the_mapped_roots_is_a_listed_package() -> None:
    listed = set(SETUPTOOLS["packages"])
    on_disk = mapped_packages()
    assert sorted(on_disk - listed) == [], "add these to [tool.setuptools] packages in pyproject.toml"
    assert sorted(listed - on_disk) == [], "these listed packages have no folder"


def test_the_mapped_folders_import_under_tau2() -> None:
    import tau2.domains.telecom
    import tau2.generator
    import tau2.personas

    for module, folder in (
        (tau2.domains.telecom, "domains"),
        (tau2.generator, "generator"),
        (tau2.personas, "personas"),
    ):
        assert module.__file__ is not None
        assert Path(module.__file__).resolve().is_relative_to(ROOT / folder)


def test_the_sdist_carries_every_folder_installs_and_runs_the_quickstart(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: this test builds the sdist from the repository")
    built = subprocess.run(
        [sys.executable, "-c", BUILD_SDIST, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    archive = tmp_path / built.stdout.strip().splitlines()[-1]
    with tarfile.open(archive) as sdist:
        members = sdist.getnames()
        sdist.extractall(tmp_path / "unpacked", filter="data")
    top = members[0].split("/", 1)[0]
    present = {name.split("/")[1] for name in members if name.count("/") >= 2}
    assert set(SDIST_FOLDERS) <= present
    assert not [name for name in members if "__pycache__" in name]

    # A fresh environment that sees this one's dependencies but not its tau2: the sdist's own install.
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "dependencies.pth").write_text(ours + "\n", encoding="utf-8")
    # The path above shows this environment's plugins' metadata (the example pack's entry points) but not
    # what an editable install of one imports through: its hook comes along, tau2's own stays behind.
    for hook in Path(ours).glob("__editable__*"):
        if "tau2_dualcontrol" not in hook.name:
            shutil.copy(hook, site)
    source = tmp_path / "unpacked" / top
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("PYTHONPATH", None)
    env.pop("CI", None)  # the unpacked sdist has no conformance data beside it; those tests skip
    work = tmp_path / "work"
    work.mkdir()
    tau2 = [str(python), "-m", "tau2"]
    where = subprocess.run(
        [str(python), "-c", "import tau2.domains; print(tau2.domains.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(site)
    hint = "from tau2._distribution import install_hint; print(install_hint('plots'))"
    installed = subprocess.run([str(python), "-c", hint], cwd=work, env=env, capture_output=True, text=True)
    assert installed.stdout == "pip install 'tau2-dualcontrol[plots]'\n", "an installed package names itself"
    quickstart = [*tau2, "run", "--domain", "telecom", "--agent", "oracle", "--user", "scripted"]
    quickstart += ["--trials", "1", "--quiet", "--out", "runs/demo"]
    ran = subprocess.run(quickstart, cwd=work, env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    report = subprocess.run(
        [*tau2, "report", "runs/demo", "--json"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(report.stdout)["pass_hat_k"]["1"]["value"] == 1.0

    # The sdist's own tests run against the installed package.
    tests = subprocess.run(
        [str(python), "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", *SDIST_TESTS],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
