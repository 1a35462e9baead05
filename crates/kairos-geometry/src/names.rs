//! Kinds and options chosen on the command line (broad phases, discrete broad phases, their
//! tuning): one macro gives each kind its `ALL`, `name`, `Display` and `FromStr`;
//! [`UnknownName`] is the error of a name that is none of them, and [`BadOption`] that of an
//! option out of its range. A leaf module: it imports nothing of the crate.

/// A name that is not one of the kinds of its sort.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{given}` (expected one of: {})", expected.join(", "))]
pub struct UnknownName {
    /// What sort of thing was asked for ("broad phase").
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// Every known name.
    pub expected: Vec<&'static str>,
}

/// An option out of its documented range.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("{option} must be {rule}, got {}", crate::num::Num(self.value))]
pub struct BadOption {
    /// The option's name.
    pub option: &'static str,
    /// The range it must lie in, in words ("positive and finite").
    pub rule: &'static str,
    /// The value given.
    pub value: f64,
}

impl BadOption {
    /// `Ok` when `ok`, else the error for `option` = `value`.
    pub fn check(
        ok: bool,
        option: &'static str,
        rule: &'static str,
        value: f64,
    ) -> Result<(), Self> {
        if ok {
            Ok(())
        } else {
            Err(BadOption {
                option,
                rule,
                value,
            })
        }
    }
}

/// An enum of named kinds: `named_kinds! { /** doc */ pub enum K("what") { /** doc */ A =>
/// "a", ... } }` defines the enum with `Clone, Copy, Debug, PartialEq, Eq, Hash`, `K::ALL` (in
/// order), `K::name`, `Display` (the name) and `FromStr` (by name, else [`UnknownName`]); with
/// the `clap` feature, also `clap::ValueEnum` (the same names, in the same order).
#[doc(hidden)]
#[macro_export]
macro_rules! __named_kinds {
    (
        $(#[$meta:meta])*
        $vis:vis enum $kind:ident($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident => $name:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $kind {
            $($(#[$vmeta])* $variant,)+
        }

        impl $kind {
            /// Every kind, in the order the benchmarks list them.
            pub const ALL: [$kind; [$($name),+].len()] = [$($kind::$variant),+];

            /// The command-line name.
            pub fn name(self) -> &'static str {
                match self {
                    $($kind::$variant => $name,)+
                }
            }
        }

        impl ::std::fmt::Display for $kind {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $kind {
            type Err = $crate::names::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|k| k.name() == s)
                    .ok_or_else(|| $crate::names::UnknownName {
                        what: $what,
                        given: s.to_string(),
                        expected: Self::ALL.iter().map(|k| k.name()).collect(),
                    })
            }
        }

        #[cfg(feature = "clap")]
        impl ::clap::ValueEnum for $kind {
            fn value_variants<'a>() -> &'a [Self] {
                &Self::ALL
            }

            fn to_possible_value(&self) -> Option<::clap::builder::PossibleValue> {
                Some(::clap::builder::PossibleValue::new(self.name()))
            }
        }
    };
}

#[doc(inline)]
pub use crate::__named_kinds as named_kinds;
