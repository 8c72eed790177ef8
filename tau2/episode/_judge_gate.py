"""Whether a finished simulation needs its judge. The reward is 1 only when the episode ended properly and
every gating component passed, so once a deterministic part (the ending, the database, stored assertions,
communicated information, reference actions) has failed, the reward is 0 whatever the judge would say: the
judge is not asked, and its statements are recorded as not needed. Rewards are the same either way;
`judge_always` asks the judge all the same (its verdicts are then recorded as diagnostics)."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.episode._basis import CheckRecord, gated_reward
from tau2.episode._episode import Episode
from tau2.episode._judge import (
    DETERMINISTIC_FAILURE,
    NOT_NEEDED,
    Judgement,
    JudgePanel,
    NLJudge,
    judge_episode,
)
from tau2.episode._trajectory import TerminationReason
from tau2.tasks import RewardType


def judge_needed(checks: Sequence[CheckRecord], termination: TerminationReason | None, reward: float) -> bool:
    """Whether the judge's verdicts could still make the reward 1. With a gating natural-language assertion,
    the reward is the gating checks' product under a proper ending, so the judge is needed only when every
    other gating check passed and the episode ended properly; without one, the judge decides nothing and is
    asked only for a reward of 1 (its verdicts are diagnostics then), as `reward` already says."""
    statements = [check for check in checks if check.kind is RewardType.NL_ASSERTION]
    if not any(check.gating for check in statements):
        return reward >= 1.0
    deterministic = [check for check in checks if check.kind is not RewardType.NL_ASSERTION]
    return gated_reward(deterministic, termination) >= 1.0


def not_needed(statements: Sequence[str]) -> Judgement:
    """The judgement of a simulation whose judge was not asked: every statement not needed."""
    return Judgement(verdicts=dict.fromkeys(statements, NOT_NEEDED), skipped=DETERMINISTIC_FAILURE)


async def needed_judgement(
    judge: NLJudge | JudgePanel | None, episode: Episode, *, always: bool
) -> Judgement:
    """The judges' verdicts on the finished `episode`'s statements, asked only when the deterministic parts
    of its evaluation leave the reward open (`always`: asked whenever there are judges and statements)."""
    statements = episode.task.evaluation.nl_assertions or []
    if judge is not None and statements and not always:
        unjudged = episode.evaluate()
        if not judge_needed(unjudged.checks, episode.trajectory.termination, unjudged.reward):
            return not_needed(statements)
    return await judge_episode(judge, episode.task, episode.trajectory, episode.config.seed)
