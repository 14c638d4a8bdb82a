#!/usr/bin/env python3
"""Writes tests/fixtures/matching_networkx.txt: the total weight of networkx's
max_weight_matching on random graphs, the independent reference tests/pairing.rs checks
`tournament::pairing::matching` against (issue 45).

Each graph is made from its number alone by splitmix64, exactly as tests/pairing.rs makes it,
so the file holds only the answers. Run: pip install networkx==3.6.1 && python3 scripts/matching_reference.py
"""

import sys

import networkx as nx

GRAPHS = 1200
MAX_VERTICES = 60
WEIGHT_RANGES = [10, 1000, 1_000_000_000]
MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def graph(number):
    """(vertices, edges, max_cardinality) of graph `number`, as tests/pairing.rs makes it."""
    rng = SplitMix64(number)
    vertices = 2 + rng.next() % (MAX_VERTICES - 1)
    density = 1 + rng.next() % 100
    top = WEIGHT_RANGES[number % len(WEIGHT_RANGES)]
    edges = []
    for a in range(vertices):
        for b in range(a + 1, vertices):
            if rng.next() % 100 < density:
                edges.append((a, b, 1 + rng.next() % top))
    return vertices, edges, number % 2 == 1


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/matching_networkx.txt"
    with open(out, "w") as f:
        f.write(f"# graph total (networkx {nx.__version__} max_weight_matching; scripts/matching_reference.py)\n")
        for number in range(GRAPHS):
            vertices, edges, max_cardinality = graph(number)
            g = nx.Graph()
            g.add_nodes_from(range(vertices))
            g.add_weighted_edges_from(edges)
            matching = nx.max_weight_matching(g, maxcardinality=max_cardinality)
            total = sum(g[a][b]["weight"] for a, b in matching)
            f.write(f"{number} {total} {len(matching)}\n")


if __name__ == "__main__":
    main()
