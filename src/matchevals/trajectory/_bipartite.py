"""Hopcroft–Karp maximum bipartite matching, on adjacency lists of small integers.

The general method of :mod:`._pairing`: left vertices are output calls, right vertices
reference calls, an edge a compatible pair.

>>> maximum_matching([[0], [0, 1], [1]], 2)
[0, 1, -1]
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["maximum_matching"]


def maximum_matching(adjacency: Sequence[Sequence[int]], right_count: int) -> list[int]:
    """Hopcroft–Karp: for each left vertex its right partner in a maximum matching, or -1.

    >>> maximum_matching([[0, 1], [0]], 2)
    [1, 0]
    """
    left_count = len(adjacency)
    left_match = [-1] * left_count
    right_match = [-1] * right_count
    for left, partners in enumerate(adjacency):  # a greedy start
        for right in partners:
            if right_match[right] < 0:
                left_match[left], right_match[right] = right, left
                break
    while True:
        distance = _layers(adjacency, left_match, right_match)
        if distance is None:
            return left_match
        pointer = [0] * left_count
        for root in range(left_count):
            if left_match[root] < 0:
                _augment(root, adjacency, left_match, right_match, distance, pointer)


def _layers(
    adjacency: Sequence[Sequence[int]], left_match: list[int], right_match: list[int]
) -> list[int] | None:
    """Breadth-first layers from the free left vertices; None when no augmenting path exists."""
    distance = [-1] * len(adjacency)
    queue = [left for left, right in enumerate(left_match) if right < 0]
    for left in queue:
        distance[left] = 0
    found = False
    head = 0
    while head < len(queue):
        left = queue[head]
        head += 1
        for right in adjacency[left]:
            owner = right_match[right]
            if owner < 0:
                found = True
            elif distance[owner] < 0:
                distance[owner] = distance[left] + 1
                queue.append(owner)
    return distance if found else None


def _augment(
    root: int,
    adjacency: Sequence[Sequence[int]],
    left_match: list[int],
    right_match: list[int],
    distance: list[int],
    pointer: list[int],
) -> None:
    """One augmenting path from ``root`` along the layers (iterative depth-first search)."""
    stack, via = [root], []
    while stack:
        left = stack[-1]
        partners = adjacency[left]
        while pointer[left] < len(partners):
            right = partners[pointer[left]]
            pointer[left] += 1
            owner = right_match[right]
            if owner < 0:
                via.append(right)
                for step, vertex in enumerate(stack):
                    left_match[vertex], right_match[via[step]] = via[step], vertex
                return
            if distance[owner] == distance[left] + 1:
                via.append(right)
                stack.append(owner)
                break
        else:
            distance[left] = -1  # a dead end for this phase
            stack.pop()
            if via:
                via.pop()
