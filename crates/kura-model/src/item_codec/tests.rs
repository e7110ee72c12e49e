use super::*;
use crate::number::strategies::arb_number;
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;

fn n(s: &str) -> Number {
    Number::parse(s).unwrap()
}

/// One attribute of each of the ten types.
fn golden_item() -> Item {
    let mut inner = Item::new();
    inner.insert("k".into(), AttributeValue::Null);
    [
        ("b", AttributeValue::B(vec![0x00, 0xFF])),
        ("bool", AttributeValue::Bool(true)),
        ("bs", AttributeValue::Bs(vec![vec![1], vec![2, 3]])),
        (
            "l",
            AttributeValue::L(vec![AttributeValue::s("x"), AttributeValue::Bool(false)]),
        ),
        ("m", AttributeValue::M(inner)),
        ("n", AttributeValue::N(n("-12.5"))),
        (
            "ns",
            AttributeValue::Ns(vec![n("0"), n("1e-130"), n("300")]),
        ),
        ("null", AttributeValue::Null),
        ("s", AttributeValue::s("é")),
        ("ss", AttributeValue::Ss(vec!["a".into(), "bc".into()])),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// Version 1 bytes of [`golden_item`]. Never edit: old data on disk looks like this.
const GOLDEN_V1: &[u8] = &[
    0x01, // version
    0x0A, // 10 attributes
    0x01,
    b'b',
    TAG_B,
    0x02,
    0x00,
    0xFF, //
    0x04,
    b'b',
    b'o',
    b'o',
    b'l',
    TAG_TRUE, //
    0x02,
    b'b',
    b's',
    TAG_BS,
    0x02,
    0x01,
    0x01,
    0x02,
    0x02,
    0x03, //
    0x01,
    b'l',
    TAG_L,
    0x02,
    TAG_S,
    0x01,
    b'x',
    TAG_FALSE, //
    0x01,
    b'm',
    TAG_M,
    0x01,
    0x01,
    b'k',
    TAG_NULL, //
    0x01,
    b'n',
    TAG_N,
    NUMBER_NEGATIVE,
    0x7D,
    0x01, // -125e-1
    0x02,
    b'n',
    b's',
    TAG_NS,
    0x03,        //
    NUMBER_ZERO, //
    NUMBER_POSITIVE,
    0x01,
    0x83,
    0x02, // 1e-130: zigzag(-130) = 259
    NUMBER_POSITIVE,
    0x03,
    0x04, // 3e2
    0x04,
    b'n',
    b'u',
    b'l',
    b'l',
    TAG_NULL, //
    0x01,
    b's',
    TAG_S,
    0x02,
    0xC3,
    0xA9, //
    0x02,
    b's',
    b's',
    TAG_SS,
    0x02,
    0x01,
    b'a',
    0x02,
    b'b',
    b'c',
];

#[test]
fn golden_version_1() {
    assert_eq!(encode_item(&golden_item()), GOLDEN_V1);
    assert_eq!(decode_item(GOLDEN_V1), Ok(golden_item()));
}

#[test]
fn every_truncation_fails() {
    for len in 0..GOLDEN_V1.len() {
        assert!(
            decode_item(&GOLDEN_V1[..len]).is_err(),
            "prefix of {len} bytes"
        );
    }
}

#[test]
fn rejects_corruption() {
    let with = |prefix: &[u8]| [&[ITEM_CODEC_VERSION], prefix].concat();
    assert_eq!(decode_item(&[]), Err(CodecError::Truncated));
    assert_eq!(decode_item(&[2, 0]), Err(CodecError::UnknownVersion(2)));
    assert_eq!(decode_item(&with(&[0])), Ok(Item::new()));
    assert_eq!(
        decode_item(&with(&[0, 0])),
        Err(CodecError::TrailingBytes(1))
    );
    assert_eq!(
        decode_item(&with(&[1, 1, b'a', 0x0C])),
        Err(CodecError::InvalidTag(0x0C))
    );
    assert_eq!(
        decode_item(&with(&[1, 1, b'a', TAG_S, 1, 0xFF])),
        Err(CodecError::InvalidUtf8)
    );
    assert_eq!(
        decode_item(&with(&[1, 1, 0xC3, TAG_NULL])),
        Err(CodecError::InvalidUtf8)
    );
    // Names must ascend strictly: duplicates and disorder are corruption.
    let dup = with(&[2, 1, b'a', TAG_NULL, 1, b'a', TAG_NULL]);
    assert!(matches!(
        decode_item(&dup),
        Err(CodecError::NonCanonical(_))
    ));
    let disorder = with(&[2, 1, b'b', TAG_NULL, 1, b'a', TAG_NULL]);
    assert!(matches!(
        decode_item(&disorder),
        Err(CodecError::NonCanonical(_))
    ));
    // Over-long and oversized LEB128.
    assert!(matches!(
        decode_item(&with(&[0x80, 0x00])),
        Err(CodecError::NonCanonical(_))
    ));
    let huge = with(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]);
    assert_eq!(decode_item(&huge), Err(CodecError::Overlong));
    assert_eq!(
        decode_item(&with(&[0xFF, 0x7F])),
        Err(CodecError::Truncated)
    );
    // Numbers: bad sign byte, trailing zero, negative zero, out of range, too precise.
    let number = |bytes: &[u8]| decode_item(&with(&[&[1, 1, b'n', TAG_N], bytes].concat()));
    assert_eq!(number(&[0x03]), Err(CodecError::InvalidTag(0x03)));
    assert!(matches!(
        number(&[NUMBER_POSITIVE, 10, 0]),
        Err(CodecError::NonCanonical(_))
    ));
    assert!(matches!(
        number(&[NUMBER_NEGATIVE, 0, 0]),
        Err(CodecError::NonCanonical(_))
    ));
    assert_eq!(
        number(&[NUMBER_POSITIVE, 1, 0xFC, 0x01]), // 1e126
        Err(CodecError::InvalidNumber(NumberError::Overflow))
    );
    let mut digits39 = Vec::new();
    write_uleb(10u128.pow(38) + 1, &mut digits39);
    assert_eq!(
        number(&[&[NUMBER_POSITIVE], &digits39[..], &[0]].concat()),
        Err(CodecError::InvalidNumber(NumberError::TooPrecise))
    );
    assert_eq!(
        number(&[NUMBER_POSITIVE, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F]),
        Err(CodecError::Overlong)
    );
}

fn nested(levels: usize) -> Item {
    let mut value = AttributeValue::Null;
    for i in 0..levels {
        value = if i % 2 == 0 {
            AttributeValue::L(vec![value])
        } else {
            AttributeValue::M([("x".to_owned(), value)].into_iter().collect())
        };
    }
    [("a".to_owned(), value)].into_iter().collect()
}

#[test]
fn depth_is_limited() {
    let ok = nested(MAX_DECODE_DEPTH);
    assert_eq!(decode_item(&encode_item(&ok)), Ok(ok));
    let too_deep = encode_item(&nested(MAX_DECODE_DEPTH + 1));
    assert_eq!(decode_item(&too_deep), Err(CodecError::TooDeep));
    // A hostile million-level nesting stops at the limit instead of the stack's end.
    let mut hostile = vec![ITEM_CODEC_VERSION, 1, 1, b'a'];
    for _ in 0..1_000_000 {
        hostile.extend([TAG_L, 1]);
    }
    assert_eq!(decode_item(&hostile), Err(CodecError::TooDeep));
}

fn arb_value() -> impl Strategy<Value = AttributeValue> {
    let leaf = prop_oneof![
        any::<String>().prop_map(AttributeValue::S),
        arb_number().prop_map(AttributeValue::N),
        vec(any::<u8>(), 0..8).prop_map(AttributeValue::B),
        any::<bool>().prop_map(AttributeValue::Bool),
        Just(AttributeValue::Null),
        vec(any::<String>(), 0..4).prop_map(AttributeValue::Ss),
        vec(arb_number(), 0..4).prop_map(AttributeValue::Ns),
        vec(vec(any::<u8>(), 0..4), 0..4).prop_map(AttributeValue::Bs),
    ];
    leaf.prop_recursive(4, 48, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
            btree_map("[a-c]{0,2}|\\PC{0,3}", inner, 0..4).prop_map(AttributeValue::M),
        ]
    })
}

fn arb_item() -> impl Strategy<Value = Item> {
    btree_map("[a-d]{1,2}|\\PC{1,4}", arb_value(), 0..6)
}

proptest! {
    #[test]
    fn round_trips(item in arb_item()) {
        let bytes = encode_item(&item);
        prop_assert_eq!(bytes.first(), Some(&ITEM_CODEC_VERSION));
        prop_assert_eq!(decode_item(&bytes), Ok(item));
    }

    #[test]
    fn random_bytes_never_panic(body in vec(any::<u8>(), 0..64), versioned in any::<bool>()) {
        let bytes = if versioned { [&[ITEM_CODEC_VERSION][..], &body].concat() } else { body };
        let _ = decode_item_where(&bytes, |name| name.len() % 2 == 0);
        let _ = top_level_list_len(&bytes, "a");
        if let Ok(item) = decode_item(&bytes) {
            prop_assert_eq!(encode_item(&item), bytes);
        }
    }

    #[test]
    fn partial_decoding_is_the_full_one_filtered(item in arb_item(), odd in any::<bool>()) {
        let bytes = encode_item(&item);
        let wanted = |name: &str| (name.len() % 2 == 1) == odd;
        let expected: Item = item.iter()
            .filter(|(name, _)| wanted(name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        prop_assert_eq!(decode_item_where(&bytes, wanted), Ok(expected));
        for (name, value) in &item {
            let len = match value { AttributeValue::L(list) => Some(list.len()), _ => None };
            prop_assert_eq!(top_level_list_len(&bytes, name), Ok(len));
        }
        prop_assert_eq!(top_level_list_len(&bytes, "\u{10FFFF}absent"), Ok(None));
    }

    #[test]
    fn mutated_encodings_are_rejected_or_canonical(
        item in arb_item(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        cut in any::<bool>(),
    ) {
        let mut bytes = encode_item(&item);
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else if let Some(b) = bytes.get_mut(i) {
            *b = byte;
        }
        if let Ok(decoded) = decode_item(&bytes) {
            prop_assert_eq!(encode_item(&decoded), bytes);
        }
    }
}
