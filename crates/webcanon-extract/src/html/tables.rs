//! Tables read as what they are: a grid of data, or the layout of a page.
//!
//! Old pages (and some new ones) are built of tables: a masthead row, a
//! navigation cell beside one big content cell, a footer row, tables in
//! tables. Read as a table, such a page is one element whose text is
//! masthead, navigation and footer together, and the extractor keeps or
//! drops it whole. This pass runs on the cleaned tree before the extractor
//! scores it, and reads every table by these rules, in this order (the
//! first that applies decides):
//!
//! 1. **Presentation**: `role="presentation"` or `role="none"`: the page
//!    says the table is layout.
//! 2. **Nested**: a table that holds another table is layout; data tables
//!    do not nest.
//! 3. **Page regions in cells**: a cell that holds a heading, a form or
//!    more than [`MAX_DATA_CELL_BLOCKS`] block elements (paragraphs,
//!    lists, `<div>`s) is a region of a page, not a datum: layout.
//! 4. **No grid**: fewer than two rows or fewer than two columns is a
//!    wrapper or a bar of links, not a grid: layout.
//! 5. **Ragged rows**: when fewer than three rows in four fill the grid's
//!    width (cells counted with their `colspan` and the `rowspan`s
//!    reaching into the row), the rows are not columns of data: layout.
//! 6. **Spans out of proportion**: when the grid would hold more than
//!    [`MAX_SLOTS_PER_CELL`] slots per cell (a cell spread over hundreds
//!    of columns), the spans draw a layout, not a grid: layout. This rule
//!    also bounds what the Markdown table of a data table costs: its
//!    slots are at most a small multiple of the cells of the page.
//! 7. **Empty cells**: when fewer than half the cells hold text, the
//!    cells are spacers and frames (images, rules, padding): layout.
//! 8. **Prose in cells**: cells of more than [`MAX_DATA_CELL_MEAN_CHARS`]
//!    visible characters on average hold prose, not data: layout.
//! 9. Otherwise the table is **data**, with header cells (`<th>`,
//!    `<thead>`) or without (its first row is then its header).
//!
//! A layout table is unwrapped: each of its cells becomes a `<div>` in
//! place, in document order, and its rows and row groups are gone, so the
//! extractor sees the content cell as an ordinary container and leaves the
//! masthead, navigation and footer cells around it. A data table is left
//! as it is, for the Markdown converter's table handler
//! ([`super::table_markdown`]) to write as a pipe table.
//!
//! `colspan` and `rowspan` are read as browsers read them: a `colspan` of
//! at most [`MAX_COLSPAN`], a `rowspan` of at most [`MAX_ROWSPAN`] (0 is
//! "to the end of the table"), anything else 1. The pass is one walk of
//! the tree (each node looks up its nearest table, row and cell through
//! its parent), then one step per table, so its cost is linear in the page
//! whatever the nesting.

use dom_query::{Document, NodeData, NodeId, NodeRef};
use rustc_hash::{FxHashMap, FxHashSet};

use super::clean::visible_chars;

/// The largest `colspan` read, as browsers cap it (HTML, "processing model
/// of tables"); larger values count as this.
pub(super) const MAX_COLSPAN: usize = 1000;
/// The largest `rowspan` read, as browsers cap it; larger values count as
/// this.
pub(super) const MAX_ROWSPAN: usize = 65_534;
/// Rule 3: a data cell holds at most this many block elements (a cell of
/// two paragraphs is still a datum; one of a page's columns is not).
pub(super) const MAX_DATA_CELL_BLOCKS: usize = 2;
/// Rule 6: a data table's grid holds at most this many slots per cell.
pub(super) const MAX_SLOTS_PER_CELL: usize = 4;
/// Rule 8: a data table's cells hold at most this many visible characters
/// on average (a sentence or two; a layout's content cell holds pages).
pub(super) const MAX_DATA_CELL_MEAN_CHARS: usize = 160;

/// Elements that make a cell a region of a page on their own (rule 3).
const REGION_ELEMENTS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6", "form"];

/// Block elements counted in a cell (rule 3).
const BLOCK_ELEMENTS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figure",
    "footer",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "ul",
];

/// How a table is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// A grid of data, written as a Markdown table.
    Data,
    /// The layout of a page, unwrapped to its cells.
    Layout,
}

/// The `colspan` of a cell as browsers read it: 1 to [`MAX_COLSPAN`].
pub(super) fn colspan(value: Option<&str>) -> usize {
    match value.and_then(|v| v.trim().parse::<usize>().ok()) {
        Some(0) | None => 1,
        Some(n) => n.min(MAX_COLSPAN),
    }
}

/// The `rowspan` of a cell as browsers read it: 1 to [`MAX_ROWSPAN`], 0
/// (to the end of the table) read as the largest.
pub(super) fn rowspan(value: Option<&str>) -> usize {
    match value.and_then(|v| v.trim().parse::<usize>().ok()) {
        Some(0) => MAX_ROWSPAN,
        None => 1,
        Some(n) => n.min(MAX_ROWSPAN),
    }
}

/// What one walk learns of a table.
#[derive(Debug, Default)]
struct TableFacts {
    presentation: bool,
    nested: bool,
    region_cell: bool,
    cells: usize,
    /// Cells with visible text.
    filled_cells: usize,
    cell_chars: usize,
    /// Each row's width: its cells' `colspan`s, plus the columns taken by
    /// `rowspan`s from rows above.
    widths: Vec<usize>,
    /// Columns taken by `rowspan`s reaching into the current row.
    carried: usize,
    /// Row index -> columns whose `rowspan` ends before that row.
    carried_until: FxHashMap<usize, usize>,
    /// The nodes unwrapped when the table is layout: row groups and rows.
    structure: Vec<NodeId>,
    /// Its cells, renamed to `<div>` when the table is layout.
    cell_nodes: Vec<NodeId>,
    /// Elements dropped when the table is layout (`<col>`, `<colgroup>`).
    columns: Vec<NodeId>,
}

impl TableFacts {
    fn start_row(&mut self) {
        let row = self.widths.len();
        self.carried -= self.carried_until.remove(&row).unwrap_or(0);
        self.widths.push(self.carried);
    }

    fn add_cell(&mut self, colspan: usize, rowspan: usize) {
        if self.widths.is_empty() {
            // A cell outside any row (a tree built by hand) opens one.
            self.start_row();
        }
        let row = self.widths.len() - 1;
        self.cells += 1;
        if let Some(width) = self.widths.last_mut() {
            *width = width.saturating_add(colspan);
        }
        if rowspan > 1 {
            self.carried = self.carried.saturating_add(colspan);
            *self.carried_until.entry(row.saturating_add(rowspan)).or_default() += colspan;
        }
    }

    /// The rules of the module documentation, in order.
    fn reading(&self) -> Reading {
        let rows = self.widths.len();
        let width = self.widths.iter().copied().max().unwrap_or(0);
        let full_rows = self.widths.iter().filter(|&&w| w == width).count();
        if self.presentation || self.nested || self.region_cell || rows < 2 || width < 2 {
            return Reading::Layout;
        }
        if full_rows * 4 < rows * 3 {
            return Reading::Layout;
        }
        if rows.saturating_mul(width) > self.cells.saturating_mul(MAX_SLOTS_PER_CELL) {
            return Reading::Layout;
        }
        if self.filled_cells * 2 < self.cells {
            return Reading::Layout;
        }
        if self.cell_chars > self.cells * MAX_DATA_CELL_MEAN_CHARS {
            return Reading::Layout;
        }
        Reading::Data
    }
}

/// Where a node sits: its nearest table, row and cell (each within the
/// nearest table).
#[derive(Debug, Clone, Copy, Default)]
struct Place {
    table: Option<NodeId>,
    cell: Option<NodeId>,
}

/// Reads every table of `doc` (see the module documentation): layout
/// tables are unwrapped to their cells, data tables stay. Returns how many
/// tables were read as each (data, layout).
pub(super) fn read_tables(doc: &Document) -> (usize, usize) {
    let Some(body) = super::clean::body(doc) else { return (0, 0) };
    let mut places: FxHashMap<NodeId, Place> = FxHashMap::default();
    places.insert(body.id, Place::default());
    let mut tables: Vec<(NodeId, TableFacts)> = Vec::new();
    let mut index: FxHashMap<NodeId, usize> = FxHashMap::default();
    let mut cell_blocks: FxHashMap<NodeId, usize> = FxHashMap::default();
    let mut filled: FxHashSet<NodeId> = FxHashSet::default();
    for node in body.descendants_it() {
        let above = node.parent().and_then(|p| places.get(&p.id).copied()).unwrap_or_default();
        let facts = above.table.and_then(|t| index.get(&t).copied());
        if node.is_text() {
            if let (Some(t), Some(cell)) = (facts, above.cell) {
                let chars = node.query_or(0, |n| match &n.data {
                    NodeData::Text { contents } => visible_chars(contents),
                    _ => 0,
                });
                let table = &mut tables[t].1;
                table.cell_chars += chars;
                if chars > 0 && filled.insert(cell) {
                    table.filled_cells += 1;
                }
            }
            continue;
        }
        if !node.is_element() {
            continue;
        }
        let name = node.node_name().unwrap_or_default();
        let mut place = above;
        match &*name {
            "table" => {
                if let Some(t) = facts {
                    tables[t].1.nested = true;
                }
                let presentation = node.attr("role").is_some_and(|r| {
                    r.trim().eq_ignore_ascii_case("presentation") || r.trim().eq_ignore_ascii_case("none")
                });
                index.insert(node.id, tables.len());
                tables.push((node.id, TableFacts { presentation, ..TableFacts::default() }));
                place = Place { table: Some(node.id), cell: None };
            }
            "thead" | "tbody" | "tfoot" if above.cell.is_none() => {
                if let Some(t) = facts {
                    tables[t].1.structure.push(node.id);
                }
            }
            "tr" if above.cell.is_none() => {
                if let Some(t) = facts {
                    tables[t].1.start_row();
                    tables[t].1.structure.push(node.id);
                }
            }
            "col" | "colgroup" if above.cell.is_none() => {
                if let Some(t) = facts {
                    tables[t].1.columns.push(node.id);
                }
            }
            "td" | "th" if above.cell.is_none() => {
                if let Some(t) = facts {
                    let table = &mut tables[t].1;
                    table.add_cell(colspan(node.attr("colspan").as_deref()), rowspan(node.attr("rowspan").as_deref()));
                    table.cell_nodes.push(node.id);
                    place.cell = Some(node.id);
                }
            }
            name => {
                if let (Some(t), Some(cell)) = (facts, above.cell) {
                    if REGION_ELEMENTS.contains(&name) {
                        tables[t].1.region_cell = true;
                    } else if BLOCK_ELEMENTS.contains(&name) {
                        let blocks = cell_blocks.entry(cell).or_default();
                        *blocks += 1;
                        if *blocks > MAX_DATA_CELL_BLOCKS {
                            tables[t].1.region_cell = true;
                        }
                    }
                }
            }
        }
        places.insert(node.id, place);
    }
    let mut counts = (0, 0);
    // Innermost last in document order: unwrapping from the end leaves the
    // outer tables' recorded nodes in place.
    for (table, facts) in tables.into_iter().rev() {
        match facts.reading() {
            Reading::Data => counts.0 += 1,
            Reading::Layout => {
                counts.1 += 1;
                unwrap_layout(doc, table, &facts);
            }
        }
    }
    counts
}

/// Unwraps a layout table: cells become `<div>`s (their spans and widths
/// dropped), rows, row groups and the table give way to their children.
fn unwrap_layout(doc: &Document, table: NodeId, facts: &TableFacts) {
    let node = |id: NodeId| NodeRef::new(id, &doc.tree);
    for &id in &facts.columns {
        node(id).remove_from_parent();
    }
    for &id in &facts.cell_nodes {
        let cell = node(id);
        cell.rename("div");
        cell.remove_attrs(&["colspan", "rowspan", "width", "height", "align", "valign", "nowrap", "headers", "scope"]);
    }
    for &id in facts.structure.iter().rev() {
        dissolve(node(id));
    }
    let table = node(table);
    // The caption, if any, is a line of text of its own.
    for child in table.element_children() {
        if child.node_name().as_deref() == Some("caption") {
            child.rename("div");
        }
    }
    dissolve(table);
}

/// Puts an element's children in its place.
fn dissolve(element: NodeRef<'_>) {
    if let Some(first) = element.first_child() {
        element.insert_siblings_before(&first);
    }
    element.remove_from_parent();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> (Document, (usize, usize)) {
        let doc = Document::from(format!("<html><body>{body}</body></html>"));
        let counts = read_tables(&doc);
        (doc, counts)
    }

    #[test]
    fn spans_are_read_as_browsers_read_them() {
        let rows: &[(Option<&str>, usize, usize)] = &[
            (None, 1, 1),
            (Some("3"), 3, 3),
            (Some(" 2 "), 2, 2),
            (Some("0"), 1, MAX_ROWSPAN),
            (Some("x"), 1, 1),
            (Some("-4"), 1, 1),
            (Some("10000"), MAX_COLSPAN, 10_000),
            (Some("99999999999999999999999"), 1, 1),
            (Some("70000"), MAX_COLSPAN, MAX_ROWSPAN),
        ];
        for &(value, col, row) in rows {
            assert_eq!((colspan(value), rowspan(value)), (col, row), "{value:?}");
        }
    }

    /// One case per rule: (page, data tables, layout tables).
    #[test]
    fn each_rule_decides_as_documented() {
        let grid = "<tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr>";
        let cases: &[(&str, String, (usize, usize))] = &[
            ("a grid of short cells is data", format!("<table>{grid}</table>"), (1, 0)),
            (
                "header cells make data",
                "<table><thead><tr><th>k</th><th>v</th></tr></thead><tr><td>1</td><td>2</td></tr></table>".into(),
                (1, 0),
            ),
            ("1: presentation", format!("<table role=presentation>{grid}</table>"), (0, 1)),
            ("1: role none", format!("<table role=' None '>{grid}</table>"), (0, 1)),
            (
                "2: nested tables are layout, the inner one is read on its own",
                format!("<table><tr><td><table>{grid}</table></td><td>x</td></tr><tr><td>y</td><td>z</td></tr></table>"),
                (1, 1),
            ),
            (
                "3: a heading in a cell",
                "<table><tr><td><h1>Site</h1></td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>".into(),
                (0, 1),
            ),
            (
                "3: a cell full of blocks",
                "<table><tr><td><p>a</p><p>b</p><ul><li>c</li></ul></td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
                    .into(),
                (0, 1),
            ),
            (
                "3: two paragraphs in a cell are still a datum",
                "<table><tr><td><p>a</p><p>b</p></td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>".into(),
                (1, 0),
            ),
            ("4: one row", "<table><tr><td>a</td><td>b</td><td>c</td></tr></table>".into(), (0, 1)),
            ("4: one column", "<table><tr><td>a</td></tr><tr><td>b</td></tr></table>".into(), (0, 1)),
            (
                "5: ragged rows",
                "<table><tr><td>a</td></tr><tr><td>b</td><td>c</td><td>d</td></tr><tr><td>e</td></tr></table>".into(),
                (0, 1),
            ),
            (
                "5: rowspans and colspans that fill the grid are regular",
                "<table><tr><th colspan=2>h</th><th rowspan=3>r</th></tr><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>".into(),
                (1, 0),
            ),
            (
                "6: a cell spread over a thousand columns",
                "<table><tr><td colspan=10000>a</td></tr><tr><td colspan=10000>b</td></tr></table>".into(),
                (0, 1),
            ),
            (
                "7: empty cells",
                "<table><tr><td><img src=a.gif></td><td>a</td><td>&nbsp;</td></tr><tr><td></td><td>b</td><td><hr></td></tr></table>".into(),
                (0, 1),
            ),
            (
                "8: prose in cells",
                format!("<table><tr><td>{0}</td><td>{0}</td></tr><tr><td>c</td><td>d</td></tr></table>", "word ".repeat(100)),
                (0, 1),
            ),
        ];
        for (name, body, expected) in cases {
            assert_eq!(read(body).1, *expected, "{name}");
        }
    }

    #[test]
    fn a_layout_table_gives_way_to_its_cells_in_order() {
        let (doc, counts) = read(
            "<table width=800><colgroup><col width=200></colgroup>\
             <tr><td colspan=2 class=masthead><h1>Site</h1></td></tr>\
             <tr><td class=nav><a href=/>Home</a></td><td class=content><p>Body one.</p><p>Body two.</p></td></tr>\
             </table>",
        );
        assert_eq!(counts, (0, 1));
        let body = super::super::clean::body(&doc).expect("a body");
        assert_eq!(
            body.inner_html().to_string(),
            "<div class=\"masthead\"><h1>Site</h1></div>\
             <div class=\"nav\"><a href=\"/\">Home</a></div>\
             <div class=\"content\"><p>Body one.</p><p>Body two.</p></div>"
        );
    }

    #[test]
    fn a_data_table_stays_as_it_is() {
        let table = "<table><tbody><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></tbody></table>";
        let (doc, counts) = read(table);
        assert_eq!(counts, (1, 0));
        assert_eq!(super::super::clean::body(&doc).expect("a body").inner_html().to_string(), table);
    }
}
