//! Data tables written as Markdown pipe tables (GitHub Flavored Markdown),
//! by these rules:
//!
//! - **Header**: the first row of the `<thead>`, when there is one, else
//!   the table's first row, whether its cells are `<th>` or `<td>` (a pipe
//!   table always has a header row). The other rows follow in document
//!   order.
//! - **Spans spread**: a cell's text goes in the first slot of the grid it
//!   covers and the other slots it covers stay empty, so every row has the
//!   same columns and a value stays under its heading. Spans are read as
//!   browsers read them ([`super::tables::colspan`], [`super::tables::rowspan`])
//!   and the grid is at most [`MAX_COLSPAN`]
//!   columns wide, so writing it costs one step per slot written.
//! - **One line per cell**: a cell's lines (from `<br>`, paragraphs or
//!   lists inside it) are joined by a space, its runs of white space made
//!   one space: a pipe table has no line breaks inside a row, and `<br>`
//!   left as HTML would be markup in the text.
//! - **Pipes escaped**: a `|` in a cell is written `\|`.
//! - **Caption**: a `<caption>` is a line of text above the table.
//! - **Empty**: a table with no cell text is written as nothing.
//!
//! Which tables are data is decided before ([`super::tables`]): the
//! layout tables are unwrapped by then.

use std::rc::Rc;

use htmd::Element;
use htmd::element_handler::{HandlerResult, Handlers};
use markup5ever_rcdom::{Node, NodeData};

use super::tables::{MAX_COLSPAN, colspan, rowspan};

/// The converter's handler for `<table>`: the table as a pipe table (see
/// the module documentation).
pub(super) fn handle(handlers: &dyn Handlers, element: Element) -> Option<HandlerResult> {
    let table = read(handlers, element.node);
    let markdown = write(&table);
    (!markdown.is_empty()).then(|| format!("\n\n{markdown}\n\n").into())
}

/// One cell as read: its text on one line and its spans.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cell {
    text: String,
    colspan: usize,
    rowspan: usize,
}

/// A table as read: caption, header row (first) and the other rows.
#[derive(Debug, Default)]
struct Table {
    caption: Option<String>,
    rows: Vec<Vec<Cell>>,
}

fn tag(node: &Node) -> Option<&str> {
    match &node.data {
        NodeData::Element { name, .. } => Some(&name.local),
        _ => None,
    }
}

fn attr(node: &Node, wanted: &str) -> Option<String> {
    match &node.data {
        NodeData::Element { attrs, .. } => {
            attrs.borrow().iter().find(|a| &*a.name.local == wanted).map(|a| a.value.to_string())
        }
        _ => None,
    }
}

/// The table's caption and rows, the header row first.
fn read(handlers: &dyn Handlers, table: &Rc<Node>) -> Table {
    let mut caption = None;
    let mut head = Vec::new();
    let mut body = Vec::new();
    let row_of = |row: &Rc<Node>| -> Vec<Cell> {
        row.children
            .borrow()
            .iter()
            .filter(|cell| matches!(tag(cell), Some("td" | "th")))
            .map(|cell| Cell {
                text: one_line(&handlers.walk_children(cell).content),
                colspan: colspan(attr(cell, "colspan").as_deref()),
                rowspan: rowspan(attr(cell, "rowspan").as_deref()),
            })
            .collect()
    };
    for child in table.children.borrow().iter() {
        match tag(child) {
            Some("caption") => caption = Some(one_line(&handlers.walk_children(child).content)),
            Some("tr") => body.push(row_of(child)),
            Some(group @ ("thead" | "tbody" | "tfoot")) => {
                let rows =
                    child.children.borrow().iter().filter(|r| tag(r) == Some("tr")).map(row_of).collect::<Vec<_>>();
                if group == "thead" { head.extend(rows) } else { body.extend(rows) }
            }
            _ => {}
        }
    }
    head.extend(body);
    Table { caption: caption.filter(|c| !c.is_empty()), rows: head }
}

/// A cell's Markdown on one line: lines trimmed and joined by a space,
/// white space runs made one space, `|` escaped.
fn one_line(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for word in markdown.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in word.chars() {
            if c == '|' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

/// The pipe table, or nothing when no cell holds text.
fn write(table: &Table) -> String {
    if table.rows.iter().flatten().all(|cell| cell.text.is_empty()) {
        return String::new();
    }
    let width = table
        .rows
        .iter()
        .map(|row| row.iter().map(|c| c.colspan).fold(0usize, usize::saturating_add))
        .max()
        .unwrap_or(0)
        .clamp(1, MAX_COLSPAN);
    let mut out = String::new();
    if let Some(caption) = &table.caption {
        out.push_str(caption);
        out.push_str("\n\n");
    }
    // Rows still covered by a `rowspan` from above, per column.
    let mut covered = vec![0usize; width];
    let mut slots: Vec<&str> = vec![""; width];
    for (index, row) in table.rows.iter().enumerate() {
        slots.iter_mut().for_each(|slot| *slot = "");
        let mut column = 0;
        for cell in row {
            while column < width && covered[column] > 0 {
                column += 1;
            }
            if column == width {
                break;
            }
            slots[column] = &cell.text;
            let end = column.saturating_add(cell.colspan).min(width);
            for taken in &mut covered[column..end] {
                // This row's cell takes the slot now; the count is of rows below.
                *taken = cell.rowspan;
            }
            column = end;
        }
        for count in &mut covered {
            *count = count.saturating_sub(1);
        }
        push_row(&mut out, &slots);
        if index == 0 {
            push_row(&mut out, &vec!["---"; width]);
        }
    }
    out.truncate(out.trim_end().len());
    out
}

fn push_row(out: &mut String, slots: &[&str]) {
    out.push('|');
    for slot in slots {
        out.push(' ');
        out.push_str(slot);
        if !slot.is_empty() {
            out.push(' ');
        }
        out.push('|');
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(text: &str, colspan: usize, rowspan: usize) -> Cell {
        Cell { text: text.into(), colspan, rowspan }
    }

    fn table(rows: Vec<Vec<Cell>>) -> Table {
        Table { caption: None, rows }
    }

    #[test]
    fn cells_are_one_line_with_pipes_escaped() {
        assert_eq!(one_line("  a\n\nb  \n c | d \\| e "), "a b c \\| d \\\\| e");
        assert_eq!(one_line("\n \n"), "");
    }

    #[test]
    fn spans_spread_into_the_grid() {
        let rows = vec![
            vec![cell("Region", 1, 2), cell("Population", 2, 1)],
            vec![cell("2010", 1, 1), cell("2020", 1, 1)],
            vec![cell("North", 1, 2), cell("1", 1, 1), cell("2", 1, 1)],
            vec![cell("3", 1, 1), cell("4", 1, 1)],
        ];
        assert_eq!(
            write(&table(rows)),
            "| Region | Population | |\n| --- | --- | --- |\n| | 2010 | 2020 |\n| North | 1 | 2 |\n| | 3 | 4 |"
        );
    }

    #[test]
    fn short_rows_are_padded_and_empty_tables_written_as_nothing() {
        let rows = vec![vec![cell("a", 1, 1), cell("b", 1, 1)], vec![cell("c", 1, 1)]];
        assert_eq!(write(&table(rows)), "| a | b |\n| --- | --- |\n| c | |");
        assert_eq!(write(&table(vec![vec![cell("", 1, 1)], vec![]])), "");
        assert_eq!(write(&table(vec![])), "");
    }

    #[test]
    fn a_caption_is_a_line_above() {
        let t = Table { caption: Some("Results".into()), rows: vec![vec![cell("a", 1, 1)]] };
        assert_eq!(write(&t), "Results\n\n| a |\n| --- |");
    }

    /// Hostile spans cost what the grid written costs: at most the
    /// browsers' cap of columns per row, one step per slot.
    #[test]
    fn huge_spans_cost_the_slots_written() {
        let rows: Vec<Vec<Cell>> = (0..2_000).map(|_| vec![cell("x", MAX_COLSPAN, 65_534)]).collect();
        let started = std::time::Instant::now();
        let written = write(&table(rows));
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
        // The first row spans every column and every row below: one grid row
        // of a thousand slots per input row, and nothing more.
        assert_eq!(written.lines().count(), 2_001);
        assert!(written.len() <= 2_001 * (2 * MAX_COLSPAN + 8), "{}", written.len());
    }
}
