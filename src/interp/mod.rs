//! interp (to be written).
