//! The RSL document as read: `content` entries, their `license` terms,
//! payment and legal statements (RSL 1.0 §3).

use super::codes::Diagnostic;
use super::usage::Usage;

/// A parsed RSL document: its `content` entries in document order and
/// what the parser noticed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RslDocument {
    /// The root's namespace as declared (`None` when it declares none).
    pub namespace: Option<String>,
    /// The `content` entries that have a `url`, in document order.
    pub contents: Vec<Content>,
    /// Findings, in document order.
    pub diagnostics: Vec<Diagnostic>,
}

/// A `content` element (§3.2): which assets, and the licenses offered for
/// them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Content {
    /// The 1-based line of the element.
    pub line: u32,
    /// The `url` pattern as written: an absolute URL, or a path with the
    /// robots.txt wildcards `*` and `$`.
    pub url: String,
    /// The `server` attribute: the license server that issues licenses for
    /// these assets. When present, a license must be obtained even if it
    /// is free (§3.2).
    pub server: Option<String>,
    /// The `encrypted` attribute (`true`: the assets are served encrypted,
    /// the key comes with the license).
    pub encrypted: bool,
    /// The `lastmod` attribute as written.
    pub lastmod: Option<String>,
    /// The `license` elements: alternative sets of terms.
    pub licenses: Vec<License>,
    /// `terms`: a URL with further licensing information.
    pub terms: Option<String>,
    /// `copyright`: who holds the rights.
    pub copyright: Option<Copyright>,
    /// `schema`: a URL with structured data about the assets.
    pub schema: Option<String>,
}

/// A `license` element (§3.3): what it permits and prohibits, what it
/// costs, its legal statements.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct License {
    /// The 1-based line of the element.
    pub line: u32,
    /// The `permits` elements, merged by type.
    pub permits: Terms,
    /// The `prohibits` elements, merged by type.
    pub prohibits: Terms,
    /// The `payment` element; `None` is free of charge.
    pub payment: Option<Payment>,
    /// The `legal` elements.
    pub legal: Vec<Legal>,
}

/// The tokens of `permits` or `prohibits` elements, by type (§3.4, §3.5).
/// A type with no element (or none whose tokens could be read) is `None`:
/// the license says nothing about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Terms {
    /// `type="usage"`: uses, from the RSL 1.0 vocabulary.
    pub usage: Option<Vec<Usage>>,
    /// `type="user"`: kinds of user (`commercial`, `education`, …).
    pub user: Option<Vec<String>>,
    /// `type="geo"`: ISO 3166-1 alpha-2 country codes, upper-cased.
    pub geo: Option<Vec<String>>,
}

/// How a license is paid for (§3.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum PaymentType {
    /// `purchase`: a one-time payment.
    Purchase,
    /// `subscription`: a recurring payment.
    Subscription,
    /// `training`: a fee per training use.
    Training,
    /// `crawl`: a fee per crawl (request).
    Crawl,
    /// `use`: a fee per use (inference, display).
    Use,
    /// `contribution`: a contribution, its amount the client's choice.
    Contribution,
    /// `attribution`: free, with credit to the source required.
    Attribution,
    /// `free`: no charge.
    Free,
}

impl PaymentType {
    /// Every type, as §3.6 lists them.
    pub const ALL: &'static [PaymentType] = &[
        PaymentType::Purchase,
        PaymentType::Subscription,
        PaymentType::Training,
        PaymentType::Crawl,
        PaymentType::Use,
        PaymentType::Contribution,
        PaymentType::Attribution,
        PaymentType::Free,
    ];

    /// The type as RSL spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            PaymentType::Purchase => "purchase",
            PaymentType::Subscription => "subscription",
            PaymentType::Training => "training",
            PaymentType::Crawl => "crawl",
            PaymentType::Use => "use",
            PaymentType::Contribution => "contribution",
            PaymentType::Attribution => "attribution",
            PaymentType::Free => "free",
        }
    }

    /// The type spelled `token`, if RSL 1.0 has it.
    pub fn parse(token: &str) -> Option<PaymentType> {
        PaymentType::ALL.iter().copied().find(|t| t.as_str() == token)
    }

    /// Whether the license costs money: every type but `free` and
    /// `attribution`.
    pub fn requires_payment(self) -> bool {
        !matches!(self, PaymentType::Free | PaymentType::Attribution)
    }
}

/// A `payment` element (§3.6 to §3.10).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Payment {
    /// The `type` attribute as written (empty when missing).
    pub type_name: String,
    /// The type, when RSL 1.0 has it.
    pub kind: Option<PaymentType>,
    /// The `amount` elements.
    pub amounts: Vec<Amount>,
    /// `standard`: a URL of standard license terms (a rate card).
    pub standard: Option<String>,
    /// `custom`: a URL where custom terms are negotiated.
    pub custom: Option<String>,
}

impl Payment {
    /// Whether this payment costs money. A type RSL 1.0 does not have is
    /// read as costing money: a warning too many beats a licence fee
    /// unmentioned.
    pub fn requires_payment(&self) -> bool {
        self.kind.is_none_or(PaymentType::requires_payment)
    }
}

/// An `amount` element: a decimal value in a currency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Amount {
    /// The `currency` attribute (ISO 4217, `USD`).
    pub currency: String,
    /// The value as written (`0.015`).
    pub value: String,
}

/// A `legal` element: its type (`warranty`, `disclaimer`, …) and tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Legal {
    /// The `type` attribute.
    pub kind: String,
    /// The whitespace-separated tokens.
    pub terms: Vec<String>,
}

/// A `copyright` element: who holds the rights, and how to reach them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Copyright {
    /// The `type` attribute (`person`, `organization`).
    pub kind: Option<String>,
    /// The holder's name (the element's text).
    pub name: String,
    /// `contactEmail`.
    pub contact_email: Option<String>,
    /// `contactUrl`.
    pub contact_url: Option<String>,
}
