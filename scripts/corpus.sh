#!/usr/bin/env bash
# Builds the real-C corpora as LLVM 14 IR: zlib, bzip2, Lua 5.4, jq 1.6, tcc (Tiny C
# Compiler), xxHash 0.8 (the xxhsum CLI), SQLite 3.40 (the amalgamation and its shell) and
# Jansson 2.14 (its json_process test driver) from Debian source packages, each compiled with
# `clang-14 -O0 -Xclang -disable-O0-optnone -S -emit-llvm -g0` and linked into one module,
# target/corpus/<name>.ll (with a `main`, so lli can run it). Two more flavours of each
# program are linked the same way from the same sources and defines:
# - target/corpus/<name>.g.ll: the same flags with `-g` (debug info: `!dbg` attachments,
#   `llvm.dbg.declare`/`llvm.dbg.value` calls, DI metadata);
# - target/corpus/<name>.O2.ll: `clang-14 -O2 -S -emit-llvm -g0` (phis, vectorized loops,
#   `select`s, intrinsics, no allocas for most locals).
# All keep typed pointers (the LLVM 14 default).
#
# What each exercises beyond plain scalar C:
# - jq: struct values. Its JSON value `jv` is a 16-byte struct passed and returned by value
#   everywhere, which clang lowers to `{ i64, %struct.jv_refcnt* }` values (loads, returns,
#   calls, insertvalue/extractvalue), and its `block` type to `{ %struct.inst*, %struct.inst* }`;
#   also VLAs (`llvm.stacksave` and dynamic `alloca` in the interpreter and the parser).
# - tcc: long double. Its constant folder computes in `long double` (x86_fp80 loads, stores,
#   arithmetic, comparisons and every conversion to and from integers, float and double), and
#   its symbol and type attributes are bitfields (`struct SymAttr`, `struct FuncAttr`).
# - xxhash: SSE2 vectors. XXH3 uses the `_mm_*` intrinsics of emmintrin.h on x86-64
#   (`<2 x i64>`/`<4 x i32>` arithmetic, shuffles, `llvm.x86.sse2.*` calls) in helpers marked
#   always_inline with `restrict` (`noalias`) pointer parameters; XXH_NO_INLINE_HINTS=0 keeps
#   them always_inline at -O0 too (as in the upstream -O3 build), so clang inlines them even
#   there and the inlined `restrict`s become `!alias.scope`/`!noalias` metadata.
# - sqlite: very large functions (the Lemon-generated parser's `yy_reduce`, the bytecode
#   interpreter `sqlite3VdbeExec`) and relaxed atomics (`load atomic`/`store atomic` from
#   `__atomic_load_n`/`__atomic_store_n`), built single-threaded (SQLITE_THREADSAFE=0),
#   without extension loading and without readline.
# - jansson: read-modify-write atomics. Every json_incref/json_decref is an
#   `__atomic_add_fetch`/`__atomic_sub_fetch` (`atomicrmw add`/`sub` acquire/release), and the
#   hash seed is published with `__atomic_test_and_set` (`atomicrmw xchg`) and an atomic
#   store/load pair.
#
# Idempotent: sources and modules already present are reused (a module whose three flavours
# are built needs neither its sources nor the network). The deb-src lines, derived from the
# machine's own apt sources, live in a private apt configuration under target/corpus/apt; the
# system's sources are not touched. SQLite's amalgamation is generated from the Debian
# source with its own configure and make (which need tclsh: the `tcl` package is installed
# when missing, as clang-14 is).
# Prints, per -O0 module: functions, blocks, instructions and allocas; then the same counts
# for the -g and -O2 flavours.
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

# The flavours: file suffix and the clang flags that select it (besides the module's own).
flavours=(ll g.ll O2.ll)
flavour_flags() {
    case $1 in
        ll) echo "-O0 -Xclang -disable-O0-optnone -g0" ;;
        g.ll) echo "-O0 -Xclang -disable-O0-optnone -g" ;;
        O2.ll) echo "-O2 -g0" ;;
    esac
}
built() { # built NAME: every flavour of NAME is present
    local fl
    for fl in "${flavours[@]}"; do [ -f "$out/$1.$fl" ] || return 1; done
}

build() { # build NAME DIR FLAGS FILES...: compiles FILES (relative to DIR) and links NAME.<flavour>
    local name=$1 dir=$2 flags=$3; shift 3
    local fl tmp f
    for fl in "${flavours[@]}"; do
        [ -f "$out/$name.$fl" ] && continue
        tmp=$out/$name.${fl%ll}parts
        rm -rf "$tmp" && mkdir -p "$tmp"
        for f in "$@"; do
            # From a fixed directory: the debug info records the working directory.
            # shellcheck disable=SC2046,SC2086
            (cd "$out" && clang-14 $(flavour_flags "$fl") -S -emit-llvm -w $flags -I"$dir" \
                -o "$tmp/$(basename "${f%.c}").ll" "$dir/$f")
        done
        llvm-link-14 -S -o "$out/$name.$fl.tmp" "$tmp"/*.ll
        mv "$out/$name.$fl.tmp" "$out/$name.$fl"
        rm -rf "$tmp"
    done
}

# Source packages are only fetched for modules not built yet (in every flavour).
built zlib || fetch zlib
built bzip2 || fetch bzip2
built lua || fetch lua5.4
built jq || fetch jq
built tcc || fetch tcc
built xxhash || fetch xxhash
built sqlite || fetch sqlite3
built jansson || fetch jansson

z=$src/zlib
build zlib "$z" "-DHAVE_UNISTD_H -DHAVE_STDARG_H" adler32.c compress.c crc32.c deflate.c \
    gzclose.c gzlib.c gzread.c gzwrite.c infback.c inffast.c inflate.c inftrees.c trees.c \
    uncompr.c zutil.c test/minigzip.c

b=$src/bzip2
build bzip2 "$b" "-D_FILE_OFFSET_BITS=64" blocksort.c huffman.c crctable.c randtable.c \
    compress.c decompress.c bzlib.c bzip2.c

l=$src/lua5.4/src
if ! built lua; then
    # debian/rules generates this header at package build time; do the same.
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
    printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' \
        "$multiarch" > "$l/lua5.4-deb-multiarch.h"
    lua_files=$(cd "$l" && ls *.c | grep -v -x -e luac.c -e onelua.c | tr '\n' ' ')
    # shellcheck disable=SC2086
    build lua "$l" "-DLUA_USE_POSIX -DLUA_COMPAT_5_3" $lua_files
fi

j=$src/jq
if ! built jq; then
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
if ! built tcc; then
    # What ./configure writes for x86-64 Linux; tcc.c includes every other source file.
    printf '#define CONFIG_TCCDIR "/usr/local/lib/tcc"\n#define TCC_VERSION "0.9.27"\n' \
        > "$t/config.h"
    build tcc "$t" "-DONE_SOURCE=1" tcc.c
fi

x=$src/xxhash
# The xxhsum CLI as its Makefile links it (xxhash.c holds the whole library, XXH3 included).
build xxhash "$x" "-DXXH_NO_INLINE_HINTS=0" xxhash.c cli/xxhsum.c cli/xsum_os_specific.c \
    cli/xsum_output.c cli/xsum_sanity_check.c cli/xsum_bench.c

s=$src/sqlite3
if ! built sqlite; then
    # The amalgamation (sqlite3.c) and the shell (shell.c) are generated by the package's
    # make from src/, tool/ and ext/ (lemon, mkkeywordhash, the opcode and amalgamation Tcl
    # scripts). configure only picks the tools here; the defines below choose the features.
    need tclsh || { apt-get update -qq; apt-get install -y -qq tcl >/dev/null; }
    need make || { apt-get update -qq; apt-get install -y -qq make >/dev/null; }
    if ! [ -f "$s/bld/sqlite3.c" ] || ! [ -f "$s/bld/shell.c" ]; then
        rm -rf "$s/bld" && mkdir -p "$s/bld"
        (cd "$s/bld" && ../configure --disable-tcl --disable-readline --disable-editline \
            CC=clang-14 >configure.log 2>&1 && make sqlite3.c shell.c >make.log 2>&1) \
            || { echo "corpus: generating the SQLite amalgamation failed (see $s/bld)" >&2; exit 1; }
    fi
    build sqlite "$s/bld" "-DNDEBUG -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
        -DSQLITE_ENABLE_MATH_FUNCTIONS" sqlite3.c shell.c
fi

n=$src/jansson
if ! built jansson; then
    # What ./configure writes for x86-64 Linux with clang (the __atomic builtins found).
    sed -e 's/@json_inline@/inline/' -e 's/@json_have_long_long@/1/' \
        -e 's/@json_have_localeconv@/1/' -e 's/@json_have_atomic_builtins@/1/' \
        -e 's/@json_have_sync_builtins@/1/' "$n/src/jansson_config.h.in" > "$n/src/jansson_config.h"
    {
        for h in ENDIAN_H FCNTL_H LOCALE_H SCHED_H UNISTD_H SYS_PARAM_H SYS_STAT_H SYS_TIME_H \
            SYS_TYPES_H STDINT_H CLOSE GETPID GETTIMEOFDAY LOCALECONV OPEN READ SCHED_YIELD \
            STRTOLL SYNC_BUILTINS ATOMIC_BUILTINS; do
            echo "#define HAVE_$h 1"
        done
        echo '#define USE_URANDOM 1'
        echo '#define INITIAL_HASHTABLE_ORDER 3'
    } > "$n/src/jansson_private_config.h"
    build jansson "$n" "-I$n/src -DHAVE_CONFIG_H" src/dump.c src/error.c src/hashtable.c \
        src/hashtable_seed.c src/load.c src/memory.c src/pack_unpack.c src/strbuffer.c \
        src/strconv.c src/utf.c src/value.c src/version.c test/bin/json_process.c
fi

modules=(zlib bzip2 lua jq tcc xxhash sqlite jansson)
stats() { # stats LABEL FILE: functions, blocks, instructions and allocas of FILE
    awk -v name="$1" '
        /^define / { fns++; inside = 1; blocks++; next }
        inside && /^}/ { inside = 0; next }
        inside && /^[A-Za-z0-9_.$-]+:/ { blocks++; next }
        inside && /^  [^ ;]/ { insts++; if ($0 ~ / = alloca /) allocas++ }
        END { printf "%-8s %10d %10d %13d %9d\n", name, fns, blocks, insts, allocas }
    ' "$2"
}
printf '%-8s %10s %10s %13s %9s\n' module functions blocks instructions allocas
for name in "${modules[@]}"; do
    stats "$name" "$out/$name.ll"
done
for fl in g.ll O2.ll; do
    for name in "${modules[@]}"; do
        stats "$name.${fl%.ll}" "$out/$name.$fl"
    done
done
