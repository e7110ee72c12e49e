//! Paging both ways over operations that page forward only (Scan, Query, PartiQL): the
//! page's own start token and the start tokens of the pages before it ride with the page
//! (`back`, separated by one character no token holds; `~` stands for the first page,
//! which has none). "Previous" starts again from the last of them.

/// What stands for the first page's (absent) start token.
const FIRST_PAGE: &str = "~";

/// The stack of start tokens for the page after the one that started at `current`.
pub(crate) fn push(back: &str, current: &str, separator: char) -> String {
    let current = if current.is_empty() {
        FIRST_PAGE
    } else {
        current
    };
    if back.is_empty() {
        current.to_owned()
    } else {
        format!("{back}{separator}{current}")
    }
}

/// The previous page: its start token ("" for the first page) and the stack before it.
pub(crate) fn pop(back: &str, separator: char) -> (&str, &str) {
    let (rest, last) = back.rsplit_once(separator).unwrap_or(("", back));
    (if last == FIRST_PAGE { "" } else { last }, rest)
}

/// The page's number, from 1.
pub(crate) fn number(back: &str, separator: char) -> usize {
    if back.is_empty() {
        1
    } else {
        back.split(separator).count() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_then_back_gives_each_page_its_start() {
        let second = push("", "", '.');
        assert_eq!((second.as_str(), number(&second, '.')), ("~", 2));
        let third = push(&second, "k2", '.');
        assert_eq!(third, "~.k2");
        assert_eq!(pop(&third, '.'), ("k2", "~"));
        assert_eq!(pop("~", '.'), ("", ""));
        assert_eq!(number("", '.'), 1);
    }
}
