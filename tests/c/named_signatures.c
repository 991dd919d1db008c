/* Named struct types in function signatures: clang-14 on x86-64 coerces struct values to
 * literal types ({ i64, i64 }, double, ...) in the default calling convention, but keeps the
 * named type (%struct.vec2, %struct.triple) as the return type of `regcall` functions. Import
 * must model them as aggregate values instead of skipping the functions. */
#include <stdio.h>

struct vec2 { double x; double y; };
struct triple { long a; long b; long c; };

static struct vec2 __attribute__((regcall)) vadd(struct vec2 p, struct vec2 q) {
    struct vec2 r = { p.x + q.x, p.y + q.y };
    return r;
}

static struct vec2 __attribute__((regcall)) vscale(struct vec2 p, double k) {
    p.x *= k;
    p.y *= k;
    return p;
}

static struct triple __attribute__((regcall)) rotate(struct triple t, int n) {
    for (int i = 0; i < n; i++) {
        long a = t.a;
        t.a = t.b;
        t.b = t.c;
        t.c = a;
    }
    return t;
}

static struct triple __attribute__((regcall)) make(long seed) {
    struct triple t;
    t.a = seed;
    t.b = seed * 3 + 1;
    t.c = seed ^ 0x55;
    return t;
}

int main(void) {
    struct vec2 v = { 1.5, -2.0 };
    for (int i = 0; i < 5; i++) {
        v = vadd(v, vscale(v, 0.25));
    }
    printf("%.6f %.6f\n", v.x, v.y);
    long sum = 0;
    for (long s = 0; s < 10; s++) {
        struct triple t = rotate(make(s), (int)s);
        sum += t.a * 100 + t.b * 10 + t.c;
        printf("%ld %ld %ld\n", t.a, t.b, t.c);
    }
    printf("%ld\n", sum);
    return (int)(sum & 0x3f);
}
