//! The page tree checked before the reader walks it: a tree whose nodes
//! are listed more than once (a graph: a few kilobytes can hold 2^30
//! leaves, which the reader would count one by one) or that is nested
//! deeper than [`MAX_PAGE_TREE_DEPTH`] (which the reader walks by
//! recursion) is refused.

use std::collections::HashSet;

use pdf_oxide::PdfDocument;
use pdf_oxide::object::{Object, ObjectRef};

use super::outcome::PdfError;

/// The deepest page tree read. Writers balance their trees (a million
/// pages fit in four levels of 32 kids); a tree deeper than this is built
/// to exhaust whoever walks it.
pub const MAX_PAGE_TREE_DEPTH: usize = 64;

/// Checks the page tree of `doc` from its catalog's `/Pages`, each node
/// loaded once, without recursion: an error when a node is listed twice
/// or sits deeper than [`MAX_PAGE_TREE_DEPTH`]. A tree the walk cannot
/// follow (a missing catalog, a node that does not load) is left to the
/// reader to judge.
pub(super) fn check_page_tree(doc: &PdfDocument) -> Result<(), PdfError> {
    let Some(root) = page_tree_root(doc) else { return Ok(()) };
    let mut seen: HashSet<ObjectRef> = HashSet::from([root]);
    let mut pending = vec![(root, 1usize)];
    while let Some((node, depth)) = pending.pop() {
        let Ok(object) = doc.load_object(node) else { continue };
        let Some(kids) = object.as_dict().and_then(|d| d.get("Kids")) else { continue };
        let kids = match kids {
            Object::Reference(r) => doc.load_object(*r).ok(),
            other => Some(other.clone()),
        };
        for kid in kids.iter().filter_map(Object::as_array).flatten().filter_map(Object::as_reference) {
            if !seen.insert(kid) {
                return Err(PdfError::Broken(format!("its page tree lists object {} more than once", kid.id)));
            }
            if depth >= MAX_PAGE_TREE_DEPTH {
                return Err(PdfError::Broken(format!("its page tree is nested deeper than {MAX_PAGE_TREE_DEPTH}")));
            }
            pending.push((kid, depth + 1));
        }
    }
    Ok(())
}

/// The catalog's `/Pages`, when it is a reference.
fn page_tree_root(doc: &PdfDocument) -> Option<ObjectRef> {
    let catalog = doc.trailer().as_dict()?.get("Root")?.as_reference()?;
    doc.load_object(catalog).ok()?.as_dict()?.get("Pages")?.as_reference()
}

#[cfg(test)]
mod tests {
    use super::*;
    use webcanon_test::pdf::{PdfSpec, bombs};

    fn checked(pdf: Vec<u8>) -> Result<(), PdfError> {
        check_page_tree(&PdfDocument::from_bytes(pdf).unwrap())
    }

    #[test]
    fn trees_pass_and_graphs_and_deep_trees_do_not() {
        assert_eq!(checked(PdfSpec::numbered(40).build()), Ok(()));
        assert_eq!(checked(bombs::nested_page_tree(MAX_PAGE_TREE_DEPTH - 1)), Ok(()));
        let started = std::time::Instant::now();
        assert_eq!(
            checked(bombs::page_graph(30)),
            Err(PdfError::Broken("its page tree lists object 5 more than once".into()))
        );
        assert_eq!(
            checked(bombs::nested_page_tree(MAX_PAGE_TREE_DEPTH + 1)),
            Err(PdfError::Broken(format!("its page tree is nested deeper than {MAX_PAGE_TREE_DEPTH}")))
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }
}
