//! HTTP 402 Payment Required, as Cloudflare's pay per crawl answers it: the
//! price asked is in the `crawler-price` response header, a currency code
//! and a decimal amount (`crawler-price: USD 0.01`).
//!
//! webcanon reads the price and reports it ([`FetchError::PaymentRequired`](crate::error::FetchError::PaymentRequired));
//! it never pays: it sends neither `crawler-exact-price` nor
//! `crawler-max-price` (the headers that accept a price), and a 402 is
//! never retried. DESIGN.md says why.

/// The response header carrying the price asked.
pub const PRICE_HEADER: &str = "crawler-price";

/// The longest amount read, in characters (a price is a few digits).
const MAX_AMOUNT_CHARS: usize = 32;

/// A price asked by a `crawler-price` header: `USD 0.01`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CrawlerPrice {
    /// The currency, an ISO 4217 code in upper case (`USD`).
    pub currency: String,
    /// The amount as the site wrote it, a decimal number (`0.01`): kept as
    /// text, so no digit is lost to a binary fraction.
    pub amount: String,
}

impl CrawlerPrice {
    /// Reads a `crawler-price` value: a three-letter currency code, white
    /// space, and a non-negative decimal amount (`USD 0.01`). Anything else
    /// is `None`: a 402 without a readable price is still a 402.
    ///
    /// ```
    /// use webcanon_client::payment::CrawlerPrice;
    ///
    /// let price = CrawlerPrice::parse("USD 0.01").unwrap();
    /// assert_eq!((price.currency.as_str(), price.amount.as_str()), ("USD", "0.01"));
    /// assert!(CrawlerPrice::parse("0.01 USD").is_none());
    /// ```
    pub fn parse(value: &str) -> Option<CrawlerPrice> {
        let mut parts = value.split_ascii_whitespace();
        let (currency, amount) = (parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let currency_ok = currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase());
        let (whole, fraction) = amount.split_once('.').unwrap_or((amount, "0"));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let amount_ok = amount.len() <= MAX_AMOUNT_CHARS && digits(whole) && digits(fraction);
        (currency_ok && amount_ok).then(|| CrawlerPrice { currency: currency.into(), amount: amount.into() })
    }
}

impl std::fmt::Display for CrawlerPrice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.currency, self.amount)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_as_pay_per_crawl_writes_them() {
        let rows: &[(&str, Option<(&str, &str)>)] = &[
            ("USD 0.01", Some(("USD", "0.01"))),
            ("  EUR   1 ", Some(("EUR", "1"))),
            ("USD 10.50", Some(("USD", "10.50"))),
            ("usd 0.01", None),
            ("USD", None),
            ("USD -1", None),
            ("USD 1e3", None),
            ("USD .5", None),
            ("USD 5.", None),
            ("USD 0.01 extra", None),
            ("DOLLARS 1", None),
            ("", None),
        ];
        for (value, expected) in rows {
            let parsed = CrawlerPrice::parse(value);
            let got = parsed.as_ref().map(|p| (p.currency.as_str(), p.amount.as_str()));
            assert_eq!(got, *expected, "{value:?}");
        }
        assert!(CrawlerPrice::parse(&format!("USD {}", "9".repeat(33))).is_none(), "bounded");
    }
}
