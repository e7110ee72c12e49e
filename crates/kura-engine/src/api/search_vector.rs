//! SearchVectors' `SearchVector` member, read straight into f32s as it arrives: a vector of
//! 1,024 numbers would otherwise become a tree of maps and strings, made and dropped on
//! every search. Its shape is judged later, with DynamoDB's words, so nothing here fails:
//! whatever is not what DynamoDB accepts is recorded as such.

use std::fmt;

use kura_model::Number;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The member as sent.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchVector {
    /// A list: each element an `{"N": text}` whose number fits an f32 (`Some`), or
    /// anything else (`None`).
    List(Vec<Option<f32>>),
    /// Any other JSON value.
    NotAList,
}

impl<'de> Deserialize<'de> for SearchVector {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ListVisitor)
    }
}

/// Visitor methods for the JSON values a visitor does not expect: each reads as
/// `$other`, and a list or map is walked to its end.
macro_rules! anything_else {
    ($other:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

struct ListVisitor;

impl<'de> Visitor<'de> for ListVisitor {
    type Value = SearchVector;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of numbers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SearchVector, A::Error> {
        // The hint is the sender's; the engine refuses more than 4,096 elements anyway.
        let mut elements = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(Element(x)) = seq.next_element()? {
            elements.push(x);
        }
        Ok(SearchVector::List(elements))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SearchVector, A::Error> {
        skip_map(map).map(|()| SearchVector::NotAList)
    }

    fn visit_str<E>(self, _: &str) -> Result<SearchVector, E> {
        Ok(SearchVector::NotAList)
    }

    anything_else!(SearchVector::NotAList);
}

/// One element: `{"N": text}` and nothing else, with a number that fits an f32.
struct Element(Option<f32>);

impl<'de> Deserialize<'de> for Element {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ElementVisitor)
    }
}

struct ElementVisitor;

impl<'de> Visitor<'de> for ElementVisitor {
    type Value = Element;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"{"N": "<number>"}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Element, A::Error> {
        let mut number = None;
        let mut members = 0;
        while let Some(IsN(is_n)) = map.next_key()? {
            members += 1;
            if is_n {
                number = map.next_value::<Text>()?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Element(number.filter(|_| members == 1)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Element, A::Error> {
        skip_seq(seq).map(|()| Element(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<Element, E> {
        Ok(Element(None))
    }

    anything_else!(Element(None));
}

/// Whether a member's name is `N`.
struct IsN(bool);

impl<'de> Deserialize<'de> for IsN {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = IsN;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E>(self, name: &str) -> Result<IsN, E> {
                Ok(IsN(name == "N"))
            }
        }
        deserializer.deserialize_str(NameVisitor)
    }
}

/// A number's text, as the f32 it denotes (None: not text, not a number, or beyond f32).
struct Text(Option<f32>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number's text")
    }

    fn visit_str<E>(self, text: &str) -> Result<Text, E> {
        Ok(Text(Number::parse_f32(text)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Text, A::Error> {
        skip_seq(seq).map(|()| Text(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
        skip_map(map).map(|()| Text(None))
    }

    anything_else!(Text(None));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> SearchVector {
        serde_json::from_str(json).expect("any JSON reads")
    }

    #[test]
    fn reads_numbers_and_marks_everything_else() {
        assert_eq!(
            read(r#"[{"N": "1.5"}, {"N": "-0"}, {"N": "1e-50"}]"#),
            SearchVector::List(vec![Some(1.5), Some(0.0), Some(0.0)])
        );
        assert_eq!(
            read(
                r#"[{"S": "1"}, {"N": "1", "S": "x"}, {"N": 1}, {"N": "1e39"}, {"N": "x"},
                     1, "1", [], {}, null, {"N": {"N": "1"}}]"#
            ),
            SearchVector::List(vec![None; 11])
        );
        for other in [r#"{"L": []}"#, r#""[1]""#, "1", "true"] {
            assert_eq!(read(other), SearchVector::NotAList, "{other}");
        }
    }
}
