//! Maximum-weight matching on a general graph, the one primitive both formats pair with.
//!
//! The algorithm is Edmonds' blossom method with primal-dual weights as Joris van Rantwijk wrote
//! it (O(n³)), which is also what lichess's `WMMatching` ports. We take it from
//! `rustworkx-core` (the Rust core of Qiskit's rustworkx, a port of the same code as networkx's
//! `max_weight_matching`), chosen over the alternatives for being kept:
//!
//! - `rustworkx-core`: released every few months by a funded team, tested against networkx,
//!   integer weights up to `i128` (room for the lexicographic costs of `swiss.rs`);
//! - `mwmatching`: the same port, but one release (0.1.1), unmaintained, `i32` weights only;
//! - `petgraph` and `blossom`: maximum-*cardinality* matching only; `pathfinding`'s
//!   Kuhn–Munkres: bipartite graphs only (a Swiss round is not bipartite).
//!
//! `tests/pairing.rs` checks it against networkx on a thousand random graphs.
//!
//! Deterministic: the algorithm's steps depend only on the order of the edges (its one hashed
//! container is the answer, which we turn into a vector here), so the same edges always give
//! the same matching, ties included.

use std::convert::Infallible;

use rustworkx_core::max_weight_matching::max_weight_matching as rustworkx_matching;
use rustworkx_core::petgraph::graph::UnGraph;

/// An undirected edge between two vertices (`0..vertices`) and its weight.
pub type Edge = (usize, usize, i128);

/// For each vertex, the vertex it is matched with (`None`: unmatched), of a matching of the
/// largest total weight; with `max_cardinality`, of the largest weight among the matchings with
/// the most edges. Edges naming a vertex out of range are a caller's bug (panic).
pub fn max_weight_matching(
    vertices: usize,
    edges: &[Edge],
    max_cardinality: bool,
) -> Vec<Option<usize>> {
    let mut graph: UnGraph<(), i128> = UnGraph::with_capacity(vertices, edges.len());
    let nodes: Vec<_> = (0..vertices).map(|_| graph.add_node(())).collect();
    for &(a, b, weight) in edges {
        graph.add_edge(nodes[a], nodes[b], weight);
    }
    let pairs = rustworkx_matching(
        &graph,
        max_cardinality,
        |edge| Ok::<_, Infallible>(*edge.weight()),
        false,
    )
    .unwrap_or_else(|never| match never {});
    let mut mate = vec![None; vertices];
    for (a, b) in pairs {
        mate[a] = Some(b);
        mate[b] = Some(a);
    }
    mate
}

/// The matched pairs `(a, b)` with `a < b`, in order of `a`.
pub fn pairs(mate: &[Option<usize>]) -> Vec<(usize, usize)> {
    mate.iter()
        .enumerate()
        .filter_map(|(a, b)| b.filter(|&b| a < b).map(|b| (a, b)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heavy_edge_beats_two_light_ones_unless_cardinality_counts() {
        // A path 0-1-2-3 with a heavy middle edge.
        let edges = [(0, 1, 2), (1, 2, 5), (2, 3, 2)];
        assert_eq!(pairs(&max_weight_matching(4, &edges, false)), vec![(1, 2)]);
        assert_eq!(
            pairs(&max_weight_matching(4, &edges, true)),
            vec![(0, 1), (2, 3)]
        );
    }

    #[test]
    fn no_edges_match_nothing() {
        assert_eq!(max_weight_matching(3, &[], true), vec![None, None, None]);
    }
}
