//! Step 4 of the reading order: blocks in the order a reader takes them,
//! by recursive cuts into bands (top to bottom) and columns (left to
//! right); a definition list read term by term, a table row by row.

use super::blocks::{BLOCK_SLACK, Block, Cell, overlap};
use super::glyphs::SAME_BASELINE;
use super::{edges, table};

/// The most blocks a page may have for the order by cuts (quadratic in
/// the blocks at worst); past it, blocks go top to bottom, left to right.
pub(super) const MAX_ORDERED_BLOCKS: usize = 2_000;

/// The fewest terms a definition list has ([`terms_beside`]).
pub(super) const MIN_TERMS: usize = 2;

/// What is read next: a block, or a table made of the blocks of its
/// columns (left to right), with its rows.
pub(super) enum Read {
    Block(usize),
    Table(Vec<Vec<usize>>, Vec<Vec<Cell>>),
}

/// Blocks in reading order (see the module's doc), the blocks of a table
/// made one.
pub(super) fn in_reading_order(blocks: Vec<Block>) -> Vec<Block> {
    let mut ids: Vec<usize> = (0..blocks.len()).collect();
    let mut order = Vec::with_capacity(blocks.len());
    if blocks.len() > MAX_ORDERED_BLOCKS {
        ids.sort_by(|&a, &b| blocks[a].top.total_cmp(&blocks[b].top).then(blocks[a].u0.total_cmp(&blocks[b].u0)));
        order = ids.into_iter().map(Read::Block).collect();
    } else {
        cut(&mut ids, &blocks, &mut order);
    }
    let mut slots: Vec<Option<Block>> = blocks.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(order.len());
    for read in order {
        match read {
            Read::Block(i) => out.extend(slots[i].take()),
            Read::Table(columns, rows) => {
                let mut parts = columns.into_iter().flatten().filter_map(|i| slots[i].take());
                let Some(mut table) = parts.next() else { continue };
                for part in parts {
                    part.lines.into_iter().for_each(|line| table.push(line));
                }
                table.rows = Some(rows);
                out.push(table);
            }
        }
    }
    out
}

/// Recursive cuts: `ids` split into bands one above the other where a
/// horizontal line between them crosses no block, each band read in turn;
/// a band that has no such line split into columns where a vertical line
/// crosses no block, read left to right; what cannot be split, top to
/// bottom. A horizontal line that only passes where the paragraphs of two
/// columns happen to end at one height (the gutter between the columns
/// goes on above and below it) is no cut, nor are the two around a row of
/// headings, one atop each column ([`lines_atop_columns`]). Columns that
/// are a definition list are read term by term ([`terms_beside`]), and
/// columns that begin a table row by row ([`table::rows`]). Each call
/// splits its blocks into smaller sets, so the recursion is at most as
/// deep as the blocks are many ([`MAX_ORDERED_BLOCKS`]).
pub(super) fn cut(ids: &mut [usize], blocks: &[Block], order: &mut Vec<Read>) {
    if ids.len() <= 1 {
        order.extend(ids.iter().map(|&i| Read::Block(i)));
        return;
    }
    let mut parts = bands(ids, blocks, |b| (b.top, b.bottom));
    // Bands of running text that share a gutter are one band, and so is a
    // row of lines alone (the headings of two columns, side by side)
    // between two such bands, where all three share it. The rows of a
    // table, a line each, stay bands of their own.
    let running = |part: &std::ops::Range<usize>| ids[part.clone()].iter().any(|&i| blocks[i].lines.len() > 1);
    let gutters_of = |part: &std::ops::Range<usize>| gutters(&ids[part.clone()], blocks);
    let mut k = 1;
    while k < parts.len() {
        let (upper, lower) = (gutters_of(&parts[k - 1]), gutters_of(&parts[k]));
        let shared = shared_gutters(&upper, &lower);
        if running(&parts[k - 1]) && !shared.is_empty() {
            if running(&parts[k]) {
                parts[k - 1].end = parts[k].end;
                parts.remove(k);
                continue;
            }
            let through = match parts.get(k + 1) {
                Some(next) if running(next) => shared_gutters(&shared, &gutters_of(next)),
                _ => Vec::new(),
            };
            let part = |p: &std::ops::Range<usize>| &ids[p.clone()];
            if through.iter().any(|&gutter| {
                lines_atop_columns(part(&parts[k - 1]), part(&parts[k]), part(&parts[k + 1]), gutter, blocks)
            }) {
                parts[k - 1].end = parts[k + 1].end;
                parts.drain(k..=k + 1);
                continue;
            }
        }
        k += 1;
    }
    if parts.len() == 1 {
        // No band to cut off: columns, if a vertical line can part them.
        ids.sort_by(|&a, &b| blocks[a].top.total_cmp(&blocks[b].top));
        parts = bands(ids, blocks, |b| (b.u0, b.u1));
        if let [terms, descriptions] = parts.as_slice()
            && terms_beside(&ids[terms.clone()], &ids[descriptions.clone()], blocks)
        {
            // A definition list: each term, then what it defines.
            let first_baseline = |i: usize| blocks[i].lines[0].v;
            ids.sort_by(|&a, &b| {
                first_baseline(a).total_cmp(&first_baseline(b)).then(blocks[a].u0.total_cmp(&blocks[b].u0))
            });
            order.extend(ids.iter().map(|&i| Read::Block(i)));
            return;
        }
        if parts.len() > 1 {
            let columns: Vec<Vec<usize>> = parts.iter().map(|part| ids[part.clone()].to_vec()).collect();
            let cells: Vec<Vec<&Block>> = columns.iter().map(|c| c.iter().map(|&i| &blocks[i]).collect()).collect();
            if let Some((taken, rows)) = table::rows(&cells) {
                order.push(Read::Table(columns[..taken].to_vec(), rows));
                let rest = parts[taken - 1].end;
                if rest < ids.len() {
                    cut(&mut ids[rest..], blocks, order);
                }
                return;
            }
        }
    }
    if parts.len() > 1 {
        for part in parts {
            cut(&mut ids[part], blocks, order);
        }
        return;
    }
    ids.sort_by(|&a, &b| blocks[a].top.total_cmp(&blocks[b].top).then(blocks[a].u0.total_cmp(&blocks[b].u0)));
    order.extend(ids.iter().map(|&i| Read::Block(i)));
}

/// `ids` sorted by where each block starts on one axis and split where
/// a line across that axis meets no block: the ranges of the parts.
pub(super) fn bands(
    ids: &mut [usize],
    blocks: &[Block],
    extent: fn(&Block) -> (f32, f32),
) -> Vec<std::ops::Range<usize>> {
    ids.sort_by(|&a, &b| extent(&blocks[a]).0.total_cmp(&extent(&blocks[b]).0));
    let mut parts = Vec::new();
    let (mut from, mut reach) = (0, extent(&blocks[ids[0]]).1);
    for k in 1..ids.len() {
        let (start, end) = extent(&blocks[ids[k]]);
        if start > reach {
            parts.push(from..k);
            from = k;
        }
        reach = reach.max(end);
    }
    parts.push(from..ids.len());
    parts
}

/// The gaps between blocks side by side (from where the blocks to the
/// left end to where the next begins): a set of blocks' gutters.
pub(super) fn gutters(ids: &[usize], blocks: &[Block]) -> Vec<(f32, f32)> {
    let mut spans: Vec<(f32, f32)> = ids.iter().map(|&i| (blocks[i].u0, blocks[i].u1)).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Vec::new();
    let mut reach = spans[0].1;
    for &(start, end) in &spans[1..] {
        if start > reach {
            out.push((reach, start));
        }
        reach = reach.max(end);
    }
    out
}

/// Whether `middle` is a row of lines alone atop two columns that go on
/// across it, from `upper` to `lower`, on either side of `gutter`: each
/// of `upper` and `lower` has a paragraph of prose (more than one line,
/// at least [`edges::PROSE_LINE`] sizes wide) on each side, and each
/// block of `middle` is on one side and begins where that side's column
/// does (a heading). An equation across the page, its pieces wherever
/// they fall, is not such a row.
pub(super) fn lines_atop_columns(
    upper: &[usize],
    middle: &[usize],
    lower: &[usize],
    gutter: (f32, f32),
    blocks: &[Block],
) -> bool {
    // Where the prose of each side of `part` begins.
    let starts = |part: &[usize]| {
        let mut starts = [f32::INFINITY; 2];
        for &i in part {
            let b = &blocks[i];
            if b.lines.len() > 1 && b.u1 - b.u0 >= edges::PROSE_LINE * b.last().size {
                if b.u1 <= gutter.0 {
                    starts[0] = starts[0].min(b.u0);
                } else if b.u0 >= gutter.1 {
                    starts[1] = starts[1].min(b.u0);
                }
            }
        }
        starts.iter().all(|s| s.is_finite()).then_some(starts)
    };
    let (Some(above), Some(below)) = (starts(upper), starts(lower)) else { return false };
    middle.iter().all(|&i| {
        let b = &blocks[i];
        let side = if b.u1 <= gutter.0 {
            0
        } else if b.u0 >= gutter.1 {
            1
        } else {
            return false;
        };
        let slack = BLOCK_SLACK * b.last().size;
        [above[side], below[side]].iter().any(|&start| (b.u0 - start).abs() <= slack)
    })
}

/// Whether `terms` (the blocks of a column) are the terms of a definition
/// list whose descriptions are `descriptions` (the column to its right):
/// at least [`MIN_TERMS`] of them, each a line alone, each on the
/// baseline of the first line of a description. Two columns of text are
/// not read so: their blocks are paragraphs, not lines alone.
pub(super) fn terms_beside(terms: &[usize], descriptions: &[usize], blocks: &[Block]) -> bool {
    let mut starts: Vec<f32> = descriptions.iter().map(|&i| blocks[i].lines[0].v).collect();
    starts.sort_by(f32::total_cmp);
    terms.len() >= MIN_TERMS
        && terms.iter().all(|&i| {
            let term = &blocks[i].lines;
            let tolerance = SAME_BASELINE * term[0].size;
            let k = starts.partition_point(|&v| v < term[0].v - tolerance);
            term.len() == 1 && starts.get(k).is_some_and(|&v| v <= term[0].v + tolerance)
        })
}

/// Where the gutters of `a` and of `b` overlap: the gaps both share.
pub(super) fn shared_gutters(a: &[(f32, f32)], b: &[(f32, f32)]) -> Vec<(f32, f32)> {
    let mut out = Vec::new();
    for &(a0, a1) in a {
        for &(b0, b1) in b {
            if overlap(a0, a1, b0, b1) > 0.0 {
                out.push((a0.max(b0), a1.min(b1)));
            }
        }
    }
    out
}
