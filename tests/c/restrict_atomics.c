/* What clang emits that strata once rejected (issue 21): `restrict` parameters of
 * always_inline helpers (at -O0 each inlined call declares its noalias scopes with
 * `llvm.experimental.noalias.scope.decl(metadata !N)`), volatile atomics (`atomicrmw
 * volatile`, `cmpxchg weak volatile`), and pointer chains through always_inline helpers that
 * LLVM's mem2reg promotes in a second round. */
#include <stdio.h>

static inline __attribute__((always_inline)) void add(int *restrict a, const int *restrict b,
                                                      int n) {
    for (int i = 0; i < n; i++)
        a[i] += b[i];
}

static inline __attribute__((always_inline)) void inc(int *p) { *p += 1; }

static inline __attribute__((always_inline)) int twice(int *p) {
    inc(p);
    inc(p);
    return *p;
}

int bump(int x) {
    int y = x;
    inc(&y);
    return y;
}

int bump_twice(int x) {
    int y = x * 3;
    return twice(&y) + y;
}

static volatile int counter = 3;

int main(void) {
    int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    add(a, b, 4);
    __atomic_fetch_add(&counter, 2, __ATOMIC_SEQ_CST);
    int seen = __atomic_fetch_sub(&counter, 1, __ATOMIC_RELAXED);
    int expected = 4;
    int swapped = __atomic_compare_exchange_n(&counter, &expected, 9, 0, __ATOMIC_SEQ_CST,
                                              __ATOMIC_SEQ_CST);
    int expected2 = 1;
    int weak = __atomic_compare_exchange_n(&counter, &expected2, 11, 1, __ATOMIC_ACQ_REL,
                                           __ATOMIC_ACQUIRE);
    int old = __atomic_exchange_n(&counter, 21, __ATOMIC_SEQ_CST);
    printf("%d %d %d %d\n", a[0], a[1], a[2], a[3]);
    printf("%d %d %d %d %d %d %d\n", seen, swapped, expected, weak, expected2, old, counter);
    printf("%d %d\n", bump(41), bump_twice(5));
    return 0;
}
