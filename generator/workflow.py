"""The workflow graph of a catalog and the order it gives each task's init calls and solution steps.

Two directed acyclic graphs (networkx): fix stages, whose edges say which fixes must precede which
(declared precedences plus the step order inside each subtask's own solution), and groups, whose edges
say which fault injections must precede which so that none erases another. Both are linearised once by a
stable topological sort whose ties are broken by declaration order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import networkx as nx

from tau2.generator.options import Order
from tau2.tasks import Catalog, Precedence, Step, Subtask


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One task's subtasks in init order and its solution steps in the order they are performed."""

    init: tuple[Subtask, ...]
    steps: tuple[Step, ...]


class Workflow:
    """The precedence graphs of a catalog's structure and the ranks their topological orders give."""

    def __init__(self, catalog: Catalog) -> None:
        chains = [
            Precedence(before=a, after=b, reason=f"step order of {subtask.name}")
            for subtask in catalog.subtasks
            for a, b in _consecutive_stages(subtask)
        ]
        self.fix_graph = _graph(catalog.stages, [*catalog.fix_order, *chains], "fix_order")
        groups = [group.name for group in catalog.groups]
        self.injection_graph = _graph(groups, catalog.injection_order, "injection_order")
        self.stage_rank = _ranks(self.fix_graph, catalog.stages)
        self.group_rank = _ranks(self.injection_graph, groups)

    def arrange(self, subtasks: Iterable[Subtask], order: Order) -> Arrangement:
        """Init blocks and solution steps of a composition under `order`.

        `tau2` sorts subtasks by name and concatenates their solutions, exactly as τ²-bench does.
        `workflow` plants faults in injection-graph order and performs steps in fix-graph order (ties by
        subtask name, then step position); a step making the same call as the one before it at the same
        stage is performed once (e.g. one reboot for a reset APN and a resumed line).
        """
        if order is Order.TAU2:
            by_name = tuple(sorted(subtasks, key=lambda subtask: subtask.name))
            return Arrangement(by_name, tuple(step for subtask in by_name for step in subtask.solution))
        chosen = list(subtasks)
        init = tuple(sorted(chosen, key=lambda subtask: (self.group_rank[subtask.group], subtask.name)))
        ranked = sorted(
            (self.stage_rank[subtask.stage_of(step)], subtask.name, index, step)
            for subtask in chosen
            for index, step in enumerate(subtask.solution)
        )
        steps: list[Step] = []
        last: tuple[int, Step] | None = None
        for rank, _, _, step in ranked:
            if last is None or last[0] != rank or not _same_call(last[1], step):
                steps.append(step)
            last = (rank, step)
        return Arrangement(init, tuple(steps))


def _consecutive_stages(subtask: Subtask) -> list[tuple[str, str]]:
    """Stage pairs (a, b) where a step of stage a is directly followed by one of a different stage b."""
    stages = [subtask.stage_of(step) for step in subtask.solution]
    return [(a, b) for a, b in pairwise(stages) if a != b]


def _graph(nodes: Sequence[str], edges: Iterable[Precedence], field: str) -> nx.DiGraph:
    """A DAG of `nodes` with one edge per precedence; a cycle is a catalog error naming it."""
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    for rule in edges:
        graph.add_edge(rule.before, rule.after, reason=rule.reason)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = " -> ".join(edge[0] for edge in nx.find_cycle(graph))
        raise ValueError(f"{field}: the precedences form a cycle through {cycle}")
    return graph


def _ranks(graph: nx.DiGraph, declared: Sequence[str]) -> dict[str, int]:
    """Position of each node in the topological order that prefers earlier-declared nodes."""
    position = {name: index for index, name in enumerate(declared)}
    ordered = nx.lexicographical_topological_sort(graph, key=position.__getitem__)
    return {name: rank for rank, name in enumerate(ordered)}


def _same_call(a: Step, b: Step) -> bool:
    """Whether two steps make the same call from the same seat."""
    return a.side is b.side and a.name == b.name and a.arguments == b.arguments
