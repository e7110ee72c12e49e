//! IAM wildcard matching: `*` any run, `?` any one character.

/// `*` any run, `?` any one character; `ignore_case` for action names.
pub fn glob(pattern: &str, text: &str, ignore_case: bool) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let eq = |a: char, b: char| {
        if ignore_case {
            a.to_lowercase().eq(b.to_lowercase())
        } else {
            a == b
        }
    };
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && eq(p[pi], t[ti]))) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// Whether `pattern` matches some text that starts with `prefix`: whether it can consume
/// all of `prefix` (whatever pattern is left, some suffix satisfies it). The set of
/// pattern positions is tracked, so the cost is the product of the two lengths.
pub(crate) fn glob_prefix(pattern: &str, prefix: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    // Positions reachable: a `*` may match nothing, so the one after it is reachable too.
    let close = |states: &mut Vec<bool>| {
        for i in 0..p.len() {
            if states[i] && p[i] == '*' {
                states[i + 1] = true;
            }
        }
    };
    let mut states = vec![false; p.len() + 1];
    states[0] = true;
    close(&mut states);
    for c in prefix.chars() {
        let mut next = vec![false; p.len() + 1];
        for i in 0..p.len() {
            if !states[i] {
                continue;
            }
            match p[i] {
                '*' => next[i] = true,
                '?' => next[i + 1] = true,
                q if q == c => next[i + 1] = true,
                _ => {}
            }
        }
        close(&mut next);
        if !next.contains(&true) {
            return false;
        }
        states = next;
    }
    true
}
