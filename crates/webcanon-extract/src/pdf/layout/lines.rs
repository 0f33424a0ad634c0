//! Step 1 of the reading order: glyphs into lines by their baselines,
//! each cut at wide gaps into fragments ([`cuts`](super::cuts)), a
//! superscript, a subscript or a lowered letter joined to the line it sits
//! on, and accents drawn as glyphs of their own composed with their
//! letters.

use super::cuts::{SCRIPT_ATTACHED, cuts};
use super::edges::Edges;
use super::glyphs::{Glyph, baseline, baseline_runs, typical_size};

/// A shorter line this close to a longer one (in the longer one's font
/// size), within its width, is a superscript, subscript or lowered letter
/// of it.
pub(super) const RAISED_OR_LOWERED: f32 = 0.6;

/// A run of glyphs smaller than this (times a line's size) near the line's
/// baseline may be its superscripts or subscripts.
pub(super) const SCRIPT_SIZE: f32 = 0.9;

/// The longest stretch of superscript or subscript (in the line's sizes)
/// that bridges a gap in the line.
pub(super) const SCRIPT_WIDTH: f32 = 5.0;

/// The widest gap (in the script's sizes) inside one stretch of it.
pub(super) const SCRIPT_GAP: f32 = 0.5;

/// How many fragments of lines either side (in the order of their
/// baselines) are looked at for the line a superscript or subscript
/// belongs to.
pub(super) const NEIGHBOUR_FRAGMENTS: usize = 24;
/// How much larger (as a ratio) than the line it joins a fragment may be
/// set: a lowered capital (the E of the TeX logo) is the line's size, a
/// heading beside the text is larger.
const HOST_SIZE: f32 = 1.5;

/// Glyphs (sorted by baseline) into lines: runs on one baseline, cut at
/// wide gaps into fragments (so that a column's fragment is not mistaken
/// for part of its neighbour's; a gap its superscripts and subscripts take
/// up is no cut, [`bridged`]), then each short fragment that sits just
/// above or below a longer one (or one as long, set larger), within its
/// width, joined to it.
pub(super) fn rows(glyphs: &[Glyph], monospaced: &[Option<f32>], edges: &Edges) -> Vec<Vec<Glyph>> {
    let mut fragments: Vec<Vec<Glyph>> = Vec::new();
    let runs: Vec<Vec<Glyph>> = baseline_runs(glyphs).collect();
    for (run, scripts) in runs.iter().zip(script_spans(&runs)) {
        let mut from = 0;
        for cut in cuts(run, typical_size(run), monospaced, edges, &scripts) {
            fragments.push(run[from..cut].to_vec());
            from = cut;
        }
        fragments.push(run[from..].to_vec());
    }
    let facts: Vec<_> = fragments
        .iter()
        .map(|f| {
            let u0 = f.iter().map(|g| g.u).fold(f32::INFINITY, f32::min);
            let u1 = f.iter().map(|g| g.end).fold(f32::NEG_INFINITY, f32::max);
            (u0, u1, baseline(f), typical_size(f), f.len())
        })
        .collect();
    // Each fragment's line: itself, or the longer fragment it is a part of.
    let mut parent: Vec<usize> = (0..fragments.len()).collect();
    let mut by_length: Vec<usize> = (0..fragments.len()).collect();
    by_length.sort_by_key(|&i| facts[i].4);
    for &i in &by_length {
        let (u0, u1, v, size, count) = facts[i];
        let near = i.saturating_sub(NEIGHBOUR_FRAGMENTS)..(i + NEIGHBOUR_FRAGMENTS + 1).min(fragments.len());
        let host = near
            .filter(|&j| j != i)
            .filter(|&j| {
                let (hu0, hu1, hv, hsize, hcount) = facts[j];
                (hcount > count || (hcount == count && hsize > size))
                    && (v - hv).abs() < RAISED_OR_LOWERED * hsize
                    && size <= hsize * HOST_SIZE
                    && u0 >= hu0 - hsize
                    && (u1 <= hu1 + hsize || scripts_end(u0, u1, size, hu1, hsize))
            })
            .max_by(|&a, &b| facts[a].4.cmp(&facts[b].4).then(facts[a].3.total_cmp(&facts[b].3)));
        if let Some(j) = host {
            parent[i] = j;
        }
    }
    let root = |mut i: usize| {
        // Hosts are always longer, or as long and set larger: the chain ends.
        while parent[i] != i {
            i = parent[i];
        }
        i
    };
    // Each glyph with where it is read from: a line's own glyphs (and
    // accents over them) each at its place, a superscript or subscript
    // (set smaller) as one unit where it begins (over the subscript beside
    // it), so that `A` with `ml` over `1,39` reads `Aml1,39`, not the two
    // interleaved.
    let mut rows: Vec<Vec<(f32, f32, Glyph)>> = vec![Vec::new(); fragments.len()];
    for (i, fragment) in fragments.into_iter().enumerate() {
        let line = root(i);
        let (_, _, v, size, _) = facts[i];
        if line == i || size >= SCRIPT_SIZE * facts[line].3 {
            rows[line].extend(fragment.into_iter().map(|g| (g.u, g.v, g)));
            continue;
        }
        // The fragment's stretches ([`stretches_of`]) are its units: a
        // prescript (`³Γ⁺`) is one apart from the script after the letter.
        let units = stretches_of(&fragment);
        let longest = SCRIPT_WIDTH * facts[line].3;
        let mut unit = 0;
        for g in fragment {
            while unit + 1 < units.len() && units[unit].1 < g.u {
                unit += 1;
            }
            let (u0, u1) = units[unit];
            rows[line].push(if u1 - u0 <= longest { (u0, v, g) } else { (g.u, g.v, g) });
        }
    }
    rows.retain(|r| !r.is_empty());
    rows.into_iter()
        .map(|mut row| {
            // Stable: a unit's glyphs stay in their order along it.
            row.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            row.into_iter().map(|(_, _, g)| g).collect()
        })
        .collect()
}

/// For each run of glyphs on one baseline (`runs`, in order of baseline),
/// the spans of its superscripts and subscripts, sorted by start: the
/// stretches (up to [`SCRIPT_GAP`] apart inside) of the runs within
/// [`RAISED_OR_LOWERED`] of its baseline, set smaller than
/// [`SCRIPT_SIZE`] times its size, and at most [`SCRIPT_WIDTH`] sizes
/// long. A line of small print across the page beside it bridges nothing.
pub(super) fn script_spans(runs: &[Vec<Glyph>]) -> Vec<Vec<(f32, f32)>> {
    let facts: Vec<(f32, f32)> = runs.iter().map(|r| (baseline(r), typical_size(r))).collect();
    let mut stretches: Vec<Option<Vec<(f32, f32)>>> = vec![None; runs.len()];
    (0..runs.len())
        .map(|i| {
            let (v, size) = facts[i];
            let near = i.saturating_sub(NEIGHBOUR_FRAGMENTS)..(i + NEIGHBOUR_FRAGMENTS + 1).min(runs.len());
            let mut spans: Vec<(f32, f32)> = Vec::new();
            for j in near {
                let (script_v, script_size) = facts[j];
                if j == i || (script_v - v).abs() >= RAISED_OR_LOWERED * size || script_size >= SCRIPT_SIZE * size {
                    continue;
                }
                let stretches = stretches[j].get_or_insert_with(|| stretches_of(&runs[j]));
                spans.extend(stretches.iter().filter(|&&(u0, u1)| u1 - u0 <= SCRIPT_WIDTH * size));
            }
            spans.sort_by(|a, b| a.0.total_cmp(&b.0));
            spans
        })
        .collect()
}

/// The stretches of a run (its glyphs sorted along it) between gaps wider
/// than [`SCRIPT_GAP`] times their size: where each begins and ends.
pub(super) fn stretches_of(run: &[Glyph]) -> Vec<(f32, f32)> {
    let mut out: Vec<(f32, f32)> = Vec::new();
    for g in run {
        match out.last_mut() {
            Some(last) if g.u - last.1 <= SCRIPT_GAP * g.size => last.1 = last.1.max(g.end),
            _ => out.push((g.u, g.end)),
        }
    }
    out
}

/// Whether a fragment from `u0` to `u1` at `size` is the superscript or
/// subscript that ends a line reaching `end` at `line_size`: set smaller,
/// beginning where the line ends, and at most [`SCRIPT_WIDTH`] sizes long
/// (`x` then `max` below it, past the line's end).
pub(super) fn scripts_end(u0: f32, u1: f32, size: f32, end: f32, line_size: f32) -> bool {
    size < SCRIPT_SIZE * line_size && u0 <= end + SCRIPT_ATTACHED * line_size && u1 - u0 <= SCRIPT_WIDTH * line_size
}

/// Accents set as glyphs of their own over (or under) a letter, as TeX
/// sets them (`\^o` is a circumflex drawn over an o), composed with the
/// letter: ô, not ˆo; over a dotless i, î. An accent is the letter's when
/// its middle is within the letter's width; one with no precomposed form
/// with its letter stays as it is. `row` is sorted along the line.
pub(super) fn compose_accents(row: &mut Vec<Glyph>) {
    let mut absorbed = vec![false; row.len()];
    for i in 0..row.len() {
        let Some(mark) = combining_mark(row[i].ch) else { continue };
        let middle = (row[i].u + row[i].end) / 2.0;
        let base = [i + 1, i.wrapping_sub(1)].into_iter().find(|&j| {
            row.get(j).is_some_and(|b| !absorbed[j] && b.ch.is_alphabetic() && (b.u..=b.end).contains(&middle))
        });
        // TeX puts an accent on an i or a j without its dot (`\^{\i}`):
        // the accented letter is the dotted one's (î, ǰ).
        let letter = |c: char| match c {
            '\u{131}' => 'i',
            '\u{237}' => 'j',
            c => c,
        };
        if let Some(j) = base
            && let Some(composed) = unicode_normalization::char::compose(letter(row[j].ch), mark)
        {
            row[j].ch = composed;
            absorbed[i] = true;
        }
    }
    if absorbed.contains(&true) {
        let mut index = 0;
        row.retain(|_| {
            index += 1;
            !absorbed[index - 1]
        });
    }
}

/// The combining mark a spacing accent glyph stands for.
pub(super) fn combining_mark(c: char) -> Option<char> {
    Some(match c {
        '`' | '\u{02cb}' => '\u{0300}',
        '\u{00b4}' | '\u{02ca}' => '\u{0301}',
        '\u{02c6}' => '\u{0302}',
        '\u{02dc}' => '\u{0303}',
        '\u{00af}' | '\u{02c9}' => '\u{0304}',
        '\u{02d8}' => '\u{0306}',
        '\u{02d9}' => '\u{0307}',
        '\u{00a8}' => '\u{0308}',
        '\u{02da}' => '\u{030a}',
        '\u{02dd}' => '\u{030b}',
        '\u{02c7}' => '\u{030c}',
        '\u{00b8}' => '\u{0327}',
        '\u{02db}' => '\u{0328}',
        '\u{0300}'..='\u{036f}' => c,
        _ => return None,
    })
}
