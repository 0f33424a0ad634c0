//! The order of the rules inside a record: longest precedence length first,
//! Allow before Disallow at equal length, then pattern text. The renderer
//! writes rules in this order and the verifier ranks patterns by the same
//! length; [`render`](mod@crate::render) explains why it satisfies both readings.

use webcanon_core::robots::Directive;

use crate::policy::Access;

/// The rules of one record in file order (see [`render`](mod@crate::render) for why this
/// order satisfies both readings).
pub fn ordered_rules(access: &Access) -> Vec<(Directive, &str)> {
    match access {
        Access::AllowAll => vec![(Directive::Allow, "/")],
        Access::DenyAll => vec![(Directive::Disallow, "/")],
        Access::Paths { allow, disallow } => {
            let mut rules: Vec<(Directive, &str)> = allow
                .iter()
                .map(|p| (Directive::Allow, p.as_str()))
                .chain(disallow.iter().map(|p| (Directive::Disallow, p.as_str())))
                .collect();
            rules.sort_by(|a, b| {
                precedence(b.1)
                    .cmp(&precedence(a.1))
                    .then_with(|| (a.0 == Directive::Disallow).cmp(&(b.0 == Directive::Disallow)))
                    .then_with(|| a.1.cmp(b.1))
            });
            rules
        }
    }
}

/// The precedence length of a pattern as the core computes it: octets after
/// percent-encoding normalisation (unreserved escapes, `%2A` and `%24`
/// decoded to one octet; octets outside printable ASCII encoded to three),
/// each `*` and a final `$` counting one.
pub fn precedence(pattern: &str) -> usize {
    let bytes = pattern.as_bytes();
    let (body, anchored) = match bytes.split_last() {
        Some((b'$', body)) => (body, true),
        _ => (bytes, false),
    };
    let hex = |b: Option<&u8>| b.and_then(|b| char::from(*b).to_digit(16));
    let mut len = usize::from(anchored);
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        if b == b'%'
            && let (Some(h), Some(l)) = (hex(body.get(i + 1)), hex(body.get(i + 2)))
        {
            let decoded = u8::try_from(h << 4 | l).unwrap_or(0);
            let single = decoded.is_ascii_alphanumeric() || matches!(decoded, b'-' | b'.' | b'_' | b'~' | b'*' | b'$');
            len += if single { 1 } else { 3 };
            i += 3;
        } else {
            len += if b != b'*' && (b <= b' ' || b >= 0x7F) { 3 } else { 1 };
            i += 1;
        }
    }
    len
}
