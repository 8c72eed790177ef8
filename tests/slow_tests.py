"""Which tests are `slow`, in one place: those that start real processes (the command line in a
subprocess, worker processes, Ray, pip), real servers that restart or a Potato server, a browser, and the
whole reliability suite. `pytest -m "not slow"` leaves them out for a quick loop; plain `pytest` (what CI
runs) runs them all. The list was drawn from `pytest --durations`: each of these takes about a second or
more, most of it spent outside the test's own process. `tests/test_slow_marks.py` checks that every entry
still names a test."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import pytest

SLOW: dict[str, tuple[str, ...] | None] = {
    "reliability/": None,
    "test_report_browser.py": None,
    "test_example_pack.py": None,
    "test_perturbation_bars.py": None,
    "test_robustness_profile.py": (
        "test_the_example_experiment_s_faulty_arms_are_significantly_worse_than_none_renaming_is_not",
    ),
    "test_output_over_input.py": ("test_standard_output_sent_into_a_runs_records_is_refused",),
    "test_data_never_imports.py": (
        "test_no_python_file_in_the_working_folder_is_imported_by_the_command_or_its_workers",
    ),
    "test_actor_plugins.py": None,
    "test_tau2bench_loader.py": None,
    "test_rebrand_conformance.py": None,
    "test_identifier_format_conformance.py": None,
    "test_packaging.py": ("test_the_sdist_carries_every_folder_installs_and_runs_the_quickstart",),
    "test_runner_workers.py": (
        "test_workers_run_every_unit_once",
        "test_a_killed_worker_loses_and_duplicates_nothing",
        "test_a_killed_driver_resumes_without_loss_or_duplicates",
        "test_ray_runs_every_unit_once",
        "test_a_local_ray_run_shows_the_user_none_of_rays_own_notices",
        "test_a_rate_limit_holds_across_workers",
    ),
    "test_cli_signals.py": (
        "test_signal_during_a_run_stops_it_with_one_line_and_keeps_the_records",
        "test_signal_while_starting_prints_one_line_not_a_traceback",
        "test_workers_stop_with_their_parent_and_say_nothing",
        "test_importing_tau2_loads_nothing_until_used",
        "test_a_signal_inside_a_run_task_leaves_no_asyncio_report",
    ),
    "test_credentials.py": (
        "test_a_refused_key_stops_the_run_at_once[*-2]",
        "test_a_refused_key_stops_a_ray_run_at_once",
    ),
    "test_retry_budget.py": (
        "test_a_run_survives_a_server_restart",
        "test_an_episode_survives_a_server_restart",
    ),
    "test_cli_verify.py": (
        "test_subprocess_reports_user_errors_on_one_line",
        "test_subprocess_verifies_and_does_not_import_litellm",
    ),
    "test_episode_cli.py": ("test_tau2_bench_file_in_a_subprocess",),
    "test_resume.py": ("test_resume_after_sigkill_loses_and_duplicates_nothing",),
    "test_experiment_run.py": (
        "test_adaptive_rounds_add_trials_only_to_uncertain_tasks[workers]",
        "test_spend_cap_stops_a_priced_model_and_no_secret_is_written[workers]",
    ),
    "test_model_cache_runs.py": (
        "test_an_experiment_run_again_with_the_cache_asks_nothing_and_writes_the_same_records[workers]",
        "test_an_experiment_run_again_with_the_cache_asks_nothing_and_writes_the_same_records[ray]",
    ),
    "test_experiment_executors.py": (
        "test_the_example_gives_the_same_records_and_verdict_on_every_executor",
        "test_a_killed_driver_of_an_experiment_on_workers_resumes_losing_duplicating_and_changing_nothing",
    ),
    "test_extension_points.py": (
        "test_installed_entry_points_add_a_lint_check_a_user_check_and_a_statistic",
    ),
    "test_layout.py": ("test_a_users_own_folder_cannot_shadow_the_shipped_packages",),
    "test_live_progress.py": ("test_tokens_move_while_the_simulations_run[2]",),
    "test_potato.py": ("test_served_project_is_annotated_and_imported",),
    "test_python_api.py": (
        "test_the_documented_example_runs_as_written",
        "test_every_executor_writes_the_records_of_the_local_one",
    ),
    "test_actors_offline.py": ("test_offline_actors_and_the_cli_never_import_litellm",),
    "test_output_width.py": ("test_piped_help_of_a_fresh_process_is_laid_out_at_the_reading_width",),
    "test_tau2bench_interop.py": ("test_export_writes_the_policy_the_run_used",),
    "test_cost_report.py": ("test_the_frontier_pages_in_the_browser_at_1280_pixels",),
    "test_tau2bench_submission.py": ("test_telecom_base_split_is_recognised",),
    "generator/test_generator_extensions.py": (
        "test_an_installed_package_ships_an_extension_through_its_entry_point",
    ),
    "tau/test_nl_judge.py": ("test_run_records_the_judge_and_its_cost[workers]",),
    "test_collateral.py": ("test_the_oracle_does_no_collateral_damage_on_tau2_bench_data",),
    "banking/test_retrieval_bounds.py": (
        "test_a_backtracking_pattern_returns_from_grep_with_pythons_answer",
        "test_a_backtracking_pattern_returns_from_the_shells_grep",
    ),
}
"""Test file (or folder, ending in `/`), relative to `tests/` → None for all of its tests, or the test
functions that are slow; `name[ids]` narrows one to the parameter sets whose id matches the `ids` pattern."""

TESTS = Path(__file__).resolve().parent


def selector_parts(selector: str) -> tuple[str, str | None]:
    """A selector's function name and its parameter-id pattern (None: every parameter set)."""
    name, bracket, ids = selector.partition("[")
    return name, ids.removesuffix("]") if bracket else None


def is_slow(item: pytest.Item) -> bool:
    """Whether the collected test `item` is listed in `SLOW`."""
    where = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
    name = getattr(item, "originalname", item.name)
    callspec = getattr(item, "callspec", None)
    for place, selectors in SLOW.items():
        if where.startswith(place) if place.endswith("/") else where == place:
            if selectors is None:
                return True
            for selector in selectors:
                wanted, ids = selector_parts(selector)
                if name != wanted:
                    continue
                if ids is None or (callspec is not None and fnmatchcase(callspec.id, ids)):
                    return True
    return False
