//! What a PartiQL SELECT returns for its list of paths. Unlike a ProjectionExpression,
//! which rebuilds the nested shape (`a.b` gives `{a: {b: ...}}`), a SELECT names each
//! value as PartiQL derives a select-list alias: by the last element of its path when it
//! is a name (`a.b` gives `{b: ...}`, `"x y".z` gives `{z: ...}`), and `_N` when it is a
//! list index (`a[0]` as the N-th path of the list gives `{_N: ...}`), as PartiQL's
//! reference implementation does. Paths that reach nothing add nothing; when two paths
//! end in the same name, the later one's value is kept (docs/compat.md, PartiQL).

use kura_model::Item;

use crate::ast::{Path, PathElement, Projection};
use crate::eval::path;

/// The item a SELECT returns for `item`: whole with `*` (`None`), else one attribute per
/// path of the select list that reaches a value.
pub fn select_item(item: Item, projection: Option<&Projection>) -> Item {
    match projection {
        None => item,
        Some(paths) => project(&item, paths),
    }
}

fn project(item: &Item, paths: &[Path]) -> Item {
    let mut out = Item::new();
    for (position, p) in paths.iter().enumerate() {
        let Some(value) = path::get(item, p) else {
            continue;
        };
        let name = match p.0.last() {
            Some(PathElement::Attribute(name)) => name.clone(),
            Some(PathElement::Index(_)) | None => format!("_{}", position + 1),
        };
        out.insert(name, value.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use kura_model::AttributeValue as V;

    use super::*;
    use crate::partiql::lower::{Lowered, lower};
    use crate::partiql::parse;

    fn item() -> Item {
        let nested = V::M([("nested".to_owned(), V::s("deep"))].into());
        let other = V::M([("nested".to_owned(), V::s("other"))].into());
        [
            ("pk".to_owned(), V::s("x")),
            ("mymap".to_owned(), nested),
            ("second".to_owned(), other),
            ("list".to_owned(), V::L(vec![V::s("zero"), V::s("one")])),
            (
                "odd name".to_owned(),
                V::M([("in".to_owned(), V::s("q"))].into()),
            ),
        ]
        .into()
    }

    fn select(statement: &str) -> Item {
        let Ok(Lowered::Select(s)) = lower(&parse(statement).unwrap(), &[]) else {
            panic!("not a select: {statement}");
        };
        select_item(item(), s.projection.as_ref())
    }

    #[test]
    fn names_are_the_last_element_of_each_path() {
        assert_eq!(
            select(r#"SELECT mymap.nested FROM "t" WHERE pk = 'x'"#),
            [("nested".to_owned(), V::s("deep"))].into()
        );
        assert_eq!(
            select(r#"SELECT pk, "odd name"."in" FROM "t""#),
            [("pk".to_owned(), V::s("x")), ("in".to_owned(), V::s("q"))].into()
        );
    }

    #[test]
    fn list_elements_are_named_by_position() {
        assert_eq!(
            select(r#"SELECT pk, list[1], list[7] FROM "t""#),
            [("pk".to_owned(), V::s("x")), ("_2".to_owned(), V::s("one"))].into()
        );
    }

    #[test]
    fn the_later_of_two_equal_names_wins_and_missing_paths_add_nothing() {
        assert_eq!(
            select(r#"SELECT mymap.nested, second.nested, mymap.none FROM "t""#),
            [("nested".to_owned(), V::s("other"))].into()
        );
        assert_eq!(select(r#"SELECT * FROM "t""#), item());
    }
}
