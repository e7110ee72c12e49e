//! Properties of the parsers in the framework: the sequence format mini-language answers
//! every input with a string or an error, never a panic; version suffixes round-trip.

use kura_cqrs::keys::{add_sort_key_version, get_sort_key_version, remove_sort_key_version};
use kura_cqrs::sequence::{SequenceSettings, date, format_number};
use proptest::prelude::*;

proptest! {
    #[test]
    fn any_format_gives_a_string_or_an_error(
        format in "[%#:>0-9a-z_*-]{0,40}",
        no in any::<i64>(),
        codes in proptest::collection::vec("[A-Z0-9]{0,6}", 0..6),
    ) {
        let settings = SequenceSettings { format: format.clone(), ..SequenceSettings::default() };
        let day = date(2024, 2, 29).expect("date");
        if let Ok(text) = format_number(&settings, no, day, &codes) {
            // Text outside %% fields is kept as is.
            if !format.contains("%%") {
                prop_assert_eq!(text, format);
            }
        }
    }

    #[test]
    fn zero_padding_reaches_the_width(no in 0i64..1_000_000, width in 0usize..=64) {
        let settings = SequenceSettings {
            format: format!("%%no#:0>{width}%%"),
            ..SequenceSettings::default()
        };
        let text = format_number(&settings, no, date(2024, 1, 1).expect("date"), &[]).expect("format");
        prop_assert_eq!(text.len(), no.to_string().len().max(width));
        prop_assert_eq!(text.trim_start_matches('0').parse::<i64>().unwrap_or(0), no);
    }

    #[test]
    fn versions_round_trip(base in "[A-Za-z0-9#_-]{1,30}", version in 0i64..1_000_000) {
        let with_version = add_sort_key_version(&base, version.into());
        prop_assert_eq!(remove_sort_key_version(&with_version), base.as_str());
        prop_assert_eq!(get_sort_key_version(&with_version), version);
    }
}
