//! One definition of the stable-code enums that every validator uses
//! (robots `R…`, llms.txt `L…`, sitemaps `S…`): code, kebab-case name,
//! severity and a one-sentence summary per variant, and the `ALL` list.

/// Defines a diagnostic code enum:
/// `diagnostic_codes! { /// doc; Name, "example"; Variant = "X001", "name", Severity, "summary"; ... }`.
macro_rules! diagnostic_codes {
    ($(#[$meta:meta])* $enum:ident, $example:literal;
     $( $variant:ident = $code:literal, $name:literal, $severity:ident, $summary:literal; )*) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $enum {
            $(
                #[doc = $summary]
                $variant,
            )*
        }

        impl $enum {
            /// Every code, in code order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            #[doc = concat!("The code, e.g. `", $example, "`.")]
            pub fn code(self) -> &'static str {
                match self { $($enum::$variant => $code,)* }
            }

            /// A short kebab-case name.
            pub fn name(self) -> &'static str {
                match self { $($enum::$variant => $name,)* }
            }

            /// The severity findings of this code have.
            pub fn severity(self) -> $crate::robots::Severity {
                match self { $($enum::$variant => $crate::robots::Severity::$severity,)* }
            }

            /// One sentence: what the code reports.
            pub fn summary(self) -> &'static str {
                match self { $($enum::$variant => $summary,)* }
            }
        }
    };
}

pub(crate) use diagnostic_codes;
