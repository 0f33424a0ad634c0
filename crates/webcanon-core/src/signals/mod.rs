//! Page-level usage signals.
