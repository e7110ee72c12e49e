//! Reading and writing the value at a document path.

use kura_model::{AttributeValue, Item, messages};

use crate::ast::{Path, PathElement};
use crate::error::{ExprError, Result};

/// The value at `path`, if the item has one there.
pub fn get<'a>(item: &'a Item, path: &Path) -> Option<&'a AttributeValue> {
    let mut elements = path.0.iter();
    let Some(PathElement::Attribute(top)) = elements.next() else {
        return None;
    };
    let mut current = item.get(top)?;
    for element in elements {
        current = match (element, current) {
            (PathElement::Attribute(key), AttributeValue::M(map)) => map.get(key)?,
            (PathElement::Index(ix), AttributeValue::L(list)) => list.get(*ix)?,
            _ => return None,
        };
    }
    Some(current)
}

fn invalid_path() -> ExprError {
    ExprError::validation(messages::UPDATE_INVALID_PATH)
}

/// The container that holds the last element of `path`, which must exist.
fn parent_mut<'a>(item: &'a mut Item, path: &Path) -> Result<&'a mut AttributeValue> {
    let (Some(PathElement::Attribute(top)), rest) = (path.0.first(), &path.0[1..path.0.len() - 1])
    else {
        return Err(invalid_path());
    };
    let mut current = item.get_mut(top).ok_or_else(invalid_path)?;
    for element in rest {
        current = match (element, current) {
            (PathElement::Attribute(key), AttributeValue::M(map)) => {
                map.get_mut(key).ok_or_else(invalid_path)?
            }
            (PathElement::Index(ix), AttributeValue::L(list)) => {
                list.get_mut(*ix).ok_or_else(invalid_path)?
            }
            _ => return Err(invalid_path()),
        };
    }
    Ok(current)
}

/// Writes `value` at `path`. The parent must exist and have the right type; an index past
/// the end of a list appends.
pub fn set(item: &mut Item, path: &Path, value: AttributeValue) -> Result<()> {
    if path.0.len() == 1 {
        item.insert(path.top().to_owned(), value);
        return Ok(());
    }
    let parent = parent_mut(item, path)?;
    match (path.0.last(), parent) {
        (Some(PathElement::Attribute(key)), AttributeValue::M(map)) => {
            map.insert(key.clone(), value);
        }
        (Some(PathElement::Index(ix)), AttributeValue::L(list)) => {
            if *ix < list.len() {
                list[*ix] = value;
            } else {
                list.push(value);
            }
        }
        _ => return Err(invalid_path()),
    }
    Ok(())
}

/// Removes the value at `path`. Removing what is not there changes nothing, but the parent
/// of a nested path must be a container of the right type.
pub fn remove(item: &mut Item, path: &Path) -> Result<Option<AttributeValue>> {
    if path.0.len() == 1 {
        return Ok(item.remove(path.top()));
    }
    let parent = parent_mut(item, path)?;
    match (path.0.last(), parent) {
        (Some(PathElement::Attribute(key)), AttributeValue::M(map)) => Ok(map.remove(key)),
        (Some(PathElement::Index(ix)), AttributeValue::L(list)) => {
            Ok((*ix < list.len()).then(|| list.remove(*ix)))
        }
        _ => Err(invalid_path()),
    }
}

/// Checks that the parent of a nested `path` exists and can hold its last element, as
/// every update action requires even when it then has nothing to do.
pub fn check_parent(item: &mut Item, path: &Path) -> Result<()> {
    if path.0.len() == 1 {
        return Ok(());
    }
    match (path.0.last(), parent_mut(item, path)?) {
        (Some(PathElement::Attribute(_)), AttributeValue::M(_))
        | (Some(PathElement::Index(_)), AttributeValue::L(_)) => Ok(()),
        _ => Err(invalid_path()),
    }
}
