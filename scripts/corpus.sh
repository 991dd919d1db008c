#!/usr/bin/env bash
# Builds the real-C corpora as LLVM 14 IR: zlib, bzip2, Lua 5.4, jq 1.6 and tcc (Tiny C
# Compiler) from Debian source packages, each compiled with
# `clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm -g0` and linked into one module,
# target/corpus/<name>.ll (with a `main`, so lli can run it).
#
# What each exercises beyond plain scalar C:
# - jq: struct values. Its JSON value `jv` is a 16-byte struct passed and returned by value
#   everywhere, which clang lowers to `{ i64, %struct.jv_refcnt* }` values (loads, returns,
#   calls, insertvalue/extractvalue), and its `block` type to `{ %struct.inst*, %struct.inst* }`;
#   also VLAs (`llvm.stacksave` and dynamic `alloca` in the interpreter and the parser).
# - tcc: long double. Its constant folder computes in `long double` (x86_fp80 loads, stores,
#   arithmetic, comparisons and every conversion to and from integers, float and double), and
#   its symbol and type attributes are bitfields (`struct SymAttr`, `struct FuncAttr`).
#
# Idempotent: sources and modules already present are reused (a module already built needs
# neither its sources nor the network). The deb-src lines, derived from the machine's own apt
# sources, live in a private apt configuration under target/corpus/apt; the system's sources
# are not touched.
# Prints, per module: functions, blocks, instructions and allocas.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/target/corpus
src=$out/src
apt=$out/apt
mkdir -p "$src" "$apt/lists/partial" "$apt/cache/archives/partial"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need clang-14 || ! need llvm-link-14 || ! need dpkg-source; then
    apt-get update -qq
    apt-get install -y -qq clang-14 llvm-14 dpkg-dev >/dev/null
fi

# The deb-src lines mirror the machine's configured `deb` sources (one-line `.list` files and
# deb822 `.sources` stanzas), so no archive address is written into the repository.
deb_src_lines() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk '$1 == "deb" { $1 = "deb-src"; print }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk '
            function flush() {
                if (types ~ /(^| )deb( |$)/ && uris != "" && enabled != "no") {
                    n = split(suites, s, " ")
                    for (i = 1; i <= n; i++) {
                        opt = signed != "" ? "[signed-by=" signed "] " : ""
                        print "deb-src " opt uris " " s[i] " " comps
                    }
                }
                types = uris = suites = comps = signed = enabled = ""
            }
            /^[ \t]*$/ { flush(); next }
            /^#/ { next }
            {
                key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
                if (key == "types") types = $0
                else if (key == "uris") uris = $0
                else if (key == "suites") suites = $0
                else if (key == "components") comps = $0
                else if (key == "signed-by") signed = $0
                else if (key == "enabled") enabled = tolower($0)
            }
            END { flush() }' "$f"
    done
}
deb_src_lines > "$apt/sources.list"
if ! [ -s "$apt/sources.list" ]; then
    echo "corpus: no deb sources configured in /etc/apt (needed for the deb-src lines)" >&2
    exit 1
fi
APT=(apt-get -qq -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
     -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")

fetch() { # fetch PACKAGE: unpacks the source package into $src/PACKAGE (once)
    local pkg=$1
    [ -d "$src/$pkg" ] && return
    [ -n "$(ls -A "$apt/lists" 2>/dev/null | grep -v partial)" ] || "${APT[@]}" update
    rm -rf "$src/$pkg.tmp" && mkdir -p "$src/$pkg.tmp"
    # The newest version first; if the mirror lacks it (a security update it does not carry
    # yet answers 404), the version of each configured suite in turn.
    local suite fetched=
    for suite in "" $(awk '$1 == "deb-src" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /^[a-z]+:/ && $i !~ /\]$/) { print $i; break } }' "$apt/sources.list"); do
        if (cd "$src/$pkg.tmp" && "${APT[@]}" source "$pkg${suite:+/$suite}" >/dev/null 2>&1); then
            fetched=1
            break
        fi
        rm -rf "${src:?}/$pkg.tmp" && mkdir -p "$src/$pkg.tmp"
    done
    [ -n "$fetched" ] || { echo "corpus: apt-get source $pkg failed for every configured suite" >&2; exit 1; }
    local dir
    dir=$(find "$src/$pkg.tmp" -mindepth 1 -maxdepth 1 -type d | head -1)
    [ -n "$dir" ] || { echo "corpus: could not unpack $pkg" >&2; exit 1; }
    mv "$dir" "$src/$pkg" && rm -rf "$src/$pkg.tmp"
}

build() { # build NAME DIR FLAGS FILES...: compiles FILES (relative to DIR) and links NAME.ll
    local name=$1 dir=$2 flags=$3; shift 3
    [ -f "$out/$name.ll" ] && return
    local tmp=$out/$name.parts
    rm -rf "$tmp" && mkdir -p "$tmp"
    for f in "$@"; do
        # shellcheck disable=SC2086
        clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm -g0 -w $flags -I"$dir" \
            -o "$tmp/$(basename "${f%.c}").ll" "$dir/$f"
    done
    llvm-link-14 -S -o "$out/$name.ll.tmp" "$tmp"/*.ll
    mv "$out/$name.ll.tmp" "$out/$name.ll"
    rm -rf "$tmp"
}

# Source packages are only fetched for modules not built yet.
[ -f "$out/zlib.ll" ] || fetch zlib
[ -f "$out/bzip2.ll" ] || fetch bzip2
[ -f "$out/lua.ll" ] || fetch lua5.4
[ -f "$out/jq.ll" ] || fetch jq
[ -f "$out/tcc.ll" ] || fetch tcc

z=$src/zlib
build zlib "$z" "-DHAVE_UNISTD_H -DHAVE_STDARG_H" adler32.c compress.c crc32.c deflate.c \
    gzclose.c gzlib.c gzread.c gzwrite.c infback.c inffast.c inflate.c inftrees.c trees.c \
    uncompr.c zutil.c test/minigzip.c

b=$src/bzip2
build bzip2 "$b" "-D_FILE_OFFSET_BITS=64" blocksort.c huffman.c crctable.c randtable.c \
    compress.c decompress.c bzlib.c bzip2.c

l=$src/lua5.4/src
if [ ! -f "$out/lua.ll" ]; then
    # debian/rules generates this header at package build time; do the same.
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
    printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' \
        "$multiarch" > "$l/lua5.4-deb-multiarch.h"
    lua_files=$(cd "$l" && ls *.c | grep -v -x -e luac.c -e onelua.c | tr '\n' ' ')
    # shellcheck disable=SC2086
    build lua "$l" "-DLUA_USE_POSIX -DLUA_COMPAT_5_3" $lua_files
fi

j=$src/jq
if [ ! -f "$out/jq.ll" ]; then
    # The Makefile generates these two files; do the same (without oniguruma: no regexes).
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$j/src/builtin.jq" \
        > "$j/src/builtin.inc"
    echo '#define JQ_VERSION "1.6"' > "$j/src/version.h"
    build jq "$j" "-I$j/src -DHAVE_ALLOCA_H -DHAVE_FREXP -DHAVE_MODF -DHAVE_GMTIME_R -DHAVE_TIMEGM \
        -DHAVE_STRFTIME -DHAVE_STRPTIME -DHAVE_MKSTEMP -DIEEE_8087" \
        src/main.c src/builtin.c src/bytecode.c src/compile.c src/execute.c src/jq_test.c \
        src/jv.c src/jv_alloc.c src/jv_aux.c src/jv_dtoa.c src/jv_file.c src/jv_parse.c \
        src/jv_print.c src/jv_unicode.c src/lexer.c src/linker.c src/locfile.c src/parser.c \
        src/util.c
fi

t=$src/tcc
if [ ! -f "$out/tcc.ll" ]; then
    # What ./configure writes for x86-64 Linux; tcc.c includes every other source file.
    printf '#define CONFIG_TCCDIR "/usr/local/lib/tcc"\n#define TCC_VERSION "0.9.27"\n' \
        > "$t/config.h"
    build tcc "$t" "-DONE_SOURCE=1" tcc.c
fi

printf '%-8s %10s %10s %13s %9s\n' module functions blocks instructions allocas
for name in zlib bzip2 lua jq tcc; do
    awk -v name="$name" '
        /^define / { fns++; inside = 1; blocks++; next }
        inside && /^}/ { inside = 0; next }
        inside && /^[A-Za-z0-9_.$-]+:/ { blocks++; next }
        inside && /^  [^ ;]/ { insts++; if ($0 ~ / = alloca /) allocas++ }
        END { printf "%-8s %10d %10d %13d %9d\n", name, fns, blocks, insts, allocas }
    ' "$out/$name.ll"
done
