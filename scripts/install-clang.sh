#!/usr/bin/env bash
# Installs clang-14 (used by tests/llvm_roundtrip.rs to compile tests/c/*.c to LLVM 14 .ll).
# Idempotent: does nothing if clang-14 is already on PATH.
set -euo pipefail
command -v clang-14 >/dev/null || (apt-get update && apt-get install -y clang-14)
