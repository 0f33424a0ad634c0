//! Multi-substring search (Aho–Corasick) over the anchor pieces of
//! wildcard patterns.
//!
//! Every pattern with a `*` inside holds at least one literal piece after
//! the `*`, and a path it matches must contain that piece. One pass of this
//! automaton over the path finds every anchor that occurs, so only the
//! patterns whose anchor is present are tried: a decision costs the path
//! length plus the candidates, not the number of wildcard rules.

use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// A compiled set of byte strings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Anchors {
    /// Per state: range into `edge_bytes`/`edge_targets`, sorted by byte.
    edges: Vec<(u32, u32)>,
    edge_bytes: Vec<u8>,
    edge_targets: Vec<u32>,
    fail: Vec<u32>,
    /// The anchor that ends at this state, if any.
    output: Vec<u32>,
    /// The nearest state down the failure chain with an output.
    output_link: Vec<u32>,
}

impl Anchors {
    /// The most heap bytes one state can take: its edge range, failure
    /// link, output and output link (20), and its one incoming edge (5);
    /// the arrays that grow while the trie is built (outputs, edges) are
    /// counted twice for their spare capacity.
    pub(crate) const BYTES_PER_STATE: usize = 40;

    /// The bytes this automaton holds on the heap.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.edges.capacity() * 8
            + self.edge_bytes.capacity()
            + (self.edge_targets.capacity() + self.fail.capacity() + self.output.capacity()) * 4
            + self.output_link.capacity() * 4
    }

    /// Builds the automaton; anchor `i` is `anchors[i]` (non-empty).
    pub(crate) fn new(anchors: &[&[u8]]) -> Anchors {
        // The trie, with children in small vectors while building.
        let mut children: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut output = vec![NONE];
        for (id, anchor) in anchors.iter().enumerate() {
            let mut state = 0usize;
            for &b in *anchor {
                state = match children[state].iter().find(|(c, _)| *c == b) {
                    Some(&(_, next)) => next as usize,
                    None => {
                        let next = children.len();
                        children.push(Vec::new());
                        output.push(NONE);
                        children[state].push((b, next as u32));
                        next
                    }
                };
            }
            output[state] = id as u32;
        }
        let mut out = Anchors {
            edges: Vec::with_capacity(children.len()),
            edge_bytes: Vec::new(),
            edge_targets: Vec::new(),
            fail: vec![0; children.len()],
            output,
            output_link: vec![NONE; children.len()],
        };
        for mut c in children {
            c.sort_unstable_by_key(|&(b, _)| b);
            out.edges.push((out.edge_bytes.len() as u32, c.len() as u32));
            out.edge_bytes.extend(c.iter().map(|&(b, _)| b));
            out.edge_targets.extend(c.iter().map(|&(_, t)| t));
        }
        // Failure links, breadth first.
        let mut queue = VecDeque::new();
        for i in 0..out.edges[0].1 {
            let child = out.edge_targets[(out.edges[0].0 + i) as usize];
            out.fail[child as usize] = 0;
            queue.push_back(child);
        }
        while let Some(state) = queue.pop_front() {
            let (start, len) = out.edges[state as usize];
            for i in start..start + len {
                let (b, child) = (out.edge_bytes[i as usize], out.edge_targets[i as usize]);
                let mut f = out.fail[state as usize];
                let target = loop {
                    if let Some(next) = out.step(f, b) {
                        break next;
                    }
                    if f == 0 {
                        break 0;
                    }
                    f = out.fail[f as usize];
                };
                out.fail[child as usize] = target;
                out.output_link[child as usize] =
                    if out.output[target as usize] != NONE { target } else { out.output_link[target as usize] };
                queue.push_back(child);
            }
        }
        out
    }

    #[inline]
    fn step(&self, state: u32, b: u8) -> Option<u32> {
        let (start, len) = self.edges[state as usize];
        let bytes = &self.edge_bytes[start as usize..(start + len) as usize];
        let i = if len <= 8 { bytes.iter().position(|&c| c == b)? } else { bytes.binary_search(&b).ok()? };
        Some(self.edge_targets[start as usize + i])
    }

    /// Calls `found` with the id of every anchor occurrence in `haystack`.
    #[inline]
    pub(crate) fn find_all(&self, haystack: &[u8], mut found: impl FnMut(u32)) {
        if self.edges.len() <= 1 {
            return;
        }
        let mut state = 0u32;
        for &b in haystack {
            state = loop {
                if let Some(next) = self.step(state, b) {
                    break next;
                }
                if state == 0 {
                    break 0;
                }
                state = self.fail[state as usize];
            };
            let mut s = if self.output[state as usize] != NONE { state } else { self.output_link[state as usize] };
            while s != NONE {
                found(self.output[s as usize]);
                s = self.output_link[s as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(anchors: &[&str], haystack: &str) -> Vec<u32> {
        let list: Vec<&[u8]> = anchors.iter().map(|a| a.as_bytes()).collect();
        let mut out = Vec::new();
        Anchors::new(&list).find_all(haystack.as_bytes(), |id| out.push(id));
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn finds_every_anchor_that_occurs() {
        let anchors = ["he", "she", "his", "hers", ".php", "/section1/", "/section12/"];
        assert_eq!(all(&anchors, "ushers"), vec![0, 1, 3]);
        assert_eq!(all(&anchors, "/a/section12/b.php"), vec![4, 6]);
        assert_eq!(all(&anchors, "/a/section1/b.php"), vec![4, 5]);
        assert_eq!(all(&anchors, "/xyz/abc.txt"), Vec::<u32>::new());
        assert_eq!(all(&[], "anything"), Vec::<u32>::new());
    }
}
