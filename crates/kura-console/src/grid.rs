//! The items grid of the browse page and the PartiQL page: every attribute a column (the
//! key attributes first, then the others by name; nothing dropped), a column picker the
//! browser remembers per table, and long values cut with the whole value one click away.

use std::collections::BTreeSet;

use maud::{Markup, html};
use serde_json::{Map, Value};

use crate::values;

/// Characters of a value its cell shows.
const CELL: usize = 60;
/// Characters of a value an opened cell shows; the item's editor has all of it.
const OPENED: usize = 4096;

/// The grid's columns: `keys` (in their order, once each), then every other attribute of
/// `items` by name.
pub(crate) fn columns(keys: &[&str], items: &[&Map<String, Value>]) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for key in keys {
        if !columns.iter().any(|c| c == key) {
            columns.push((*key).to_owned());
        }
    }
    let others: BTreeSet<&String> = items
        .iter()
        .flat_map(|item| item.keys())
        .filter(|name| !columns.contains(name))
        .collect();
    columns.extend(others.into_iter().cloned());
    columns
}

/// A row's editor link, when the grid has one.
pub(crate) type Link<'a> = &'a dyn Fn(&Map<String, Value>) -> Option<String>;

/// The picker and the grid. `name` keys the picker's memory (the table, or `partiql`);
/// `link` gives a row's editor link, drawn as a first column when given.
pub(crate) fn grid(
    name: &str,
    columns: &[String],
    items: &[&Map<String, Value>],
    link: Option<Link<'_>>,
) -> Markup {
    html! {
        details.columns data-columns-of=(name) data-offset=(u8::from(link.is_some())) {
            summary { "Columns: " span.shown { (columns.len()) } " of " (columns.len()) }
            div.picker {
                @for c in columns {
                    label { input type="checkbox" checked value=(c); " " (c) }
                }
            }
        }
        div.scroll {
            table.grid.items {
                thead {
                    tr {
                        @if link.is_some() { th { span.sr { "Open" } } }
                        @for c in columns { th { (c) } }
                    }
                }
                tbody {
                    @for item in items {
                        tr {
                            @if let Some(link) = link {
                                td { @if let Some(url) = link(item) { a href=(url) { "edit" } } }
                            }
                            @for c in columns {
                                td title=[item.get(c).map(|v| values::type_of(v).to_owned())] {
                                    @if let Some(v) = item.get(c) { (cell(v)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A value in its cell: short ones whole; long ones cut, opening in place to the first
/// [`OPENED`] characters.
fn cell(value: &Value) -> Markup {
    let text = values::text(value);
    if text.chars().nth(CELL).is_none() {
        return html! { (text) };
    }
    html! {
        details.cell {
            summary { (values::cut(&text, CELL)) }
            div.full { (values::cut(&text, OPENED)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_attribute_is_a_column_keys_first() {
        let wide: Map<String, Value> = (0..30)
            .map(|n| (format!("a{n:02}"), json!({ "S": "x" })))
            .chain([("sk".to_owned(), json!({ "S": "1" }))])
            .collect();
        let other: Map<String, Value> = [("zz".to_owned(), json!({ "N": "1" }))]
            .into_iter()
            .collect();
        let columns = columns(&["pk", "sk", "sk"], &[&wide, &other]);
        assert_eq!(columns.len(), 2 + 30 + 1);
        assert_eq!(&columns[..3], ["pk", "sk", "a00"]);
        assert_eq!(columns.last().map(String::as_str), Some("zz"));
    }

    #[test]
    fn long_values_open_in_place() {
        let long = json!({ "S": "x".repeat(5000) });
        let html = cell(&long).into_string();
        assert!(
            html.starts_with("<details class=\"cell\"><summary>"),
            "{html}"
        );
        assert!(html.contains(&format!("{}…</summary>", "x".repeat(60))));
        assert!(html.contains(&format!("{}…</div>", "x".repeat(4096))));
        assert_eq!(cell(&json!({ "S": "short" })).into_string(), "short");
    }
}
