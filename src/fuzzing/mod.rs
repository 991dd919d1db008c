//! fuzzing (to be written).
