"""Maximum-weight matching over a small graph: networkx's blossom algorithm.

networkx's ``max_weight_matching`` is exact (Edmonds' blossoms) but pure Python: a
complete graph of 48 players takes a tenth of a second here, one of 128 over two seconds,
so the Swiss pairs only score groups and short stretches of the table with it
(service/competition/swiss.py) and never a whole field of a thousand.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import networkx as nx

T = TypeVar("T", bound=Hashable)


def best_matching(nodes: Sequence[T], weight: Callable[[T, T], int | None]) -> list[tuple[T, T]]:
    """The matching of the most pairs, and among those the greatest total weight.
    ``weight(a, b)`` is None where ``a`` and ``b`` may not be paired. The pairs come in the
    order of ``nodes`` (each pair's first the earlier), so the answer never depends on
    how networkx walks its sets."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(nodes)))
    for i in range(len(nodes)):
        for j in range(i + 1, len(nodes)):
            w = weight(nodes[i], nodes[j])
            if w is not None:
                graph.add_edge(i, j, weight=w)
    pairs = sorted(
        tuple(sorted(edge)) for edge in nx.max_weight_matching(graph, maxcardinality=True)
    )
    return [(nodes[i], nodes[j]) for i, j in pairs]
