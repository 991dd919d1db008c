/* Edge cases: bitfields, function-pointer tables, big and small struct returns, static
   locals, computed goto (blockaddress/indirectbr), asm goto (callbr), i128, _Bool, special floats,
   intrinsics, wide strings, goto, 64-bit switch. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>
#include <wchar.h>

struct bits { unsigned a : 3; unsigned b : 13; signed c : 7; unsigned long long d : 40; };
struct big { long v[8]; };
struct small { int x; int y; };
struct dd { double a, b; };
typedef int (*binop)(int, int);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static const binop ops[] = { add, sub, 0 };
static const struct { const char *name; binop fn; } named[] = { { "add", add }, { "sub", sub } };

static struct big make_big(long s) { struct big b; for (int i = 0; i < 8; i++) b.v[i] = s * i; return b; }
static struct small make_small(int x) { struct small s = { x, x * 2 }; return s; }
static long sum_big(struct big b) { long t = 0; for (int i = 0; i < 8; i++) t += b.v[i]; return t; }

static int counter(void) { static int n; return ++n; }

static int is_five(int x) {
    asm goto("cmpl $5, %0\n\tje %l1" : : "r"(x) : "cc" : yes);
    return 0;
yes:
    return 1;
}

static int dispatch(int op, int x) {
    static void *labels[] = { &&l_inc, &&l_dbl, &&l_neg };
    if (op < 0 || op > 2) return x;
    goto *labels[op];
l_inc: return x + 1;
l_dbl: return x * 2;
l_neg: return -x;
}

static void mul128(long a, long b, __int128 *out) { *out = (__int128)a * b; }

int main(void) {
    struct bits bf = { 5, 1000, -20, 0x123456789ull };
    bf.b += 3;
    printf("bits %u %u %d %llx\n", bf.a, bf.b, bf.c, (unsigned long long)bf.d);
    int r = 0;
    for (int i = 0; ops[i]; i++) r += ops[i](10, 3);
    printf("ops %d %s %d\n", r, named[1].name, named[1].fn(5, 8));
    struct big b = make_big(3);
    struct big c = b;
    c.v[0] = 100;
    printf("big %ld %ld\n", sum_big(b), sum_big(c));
    struct small s = make_small(21);
    printf("small %d %d\n", s.x, s.y);
    counter(); counter();
    printf("counter %d\n", counter());
    printf("dispatch %d %d %d %d\n", dispatch(0, 5), dispatch(1, 5), dispatch(2, 5), dispatch(7, 5));
    printf("asm goto %d %d\n", is_five(5), is_five(4));
    __int128 m;
    mul128(1L << 40, 1L << 30, &m);
    printf("i128 %llx %llx\n", (unsigned long long)(m >> 64), (unsigned long long)m);
    _Bool t = r > 3;
    double z = -0.0, inf = INFINITY;
    printf("bool %d %g %g %d\n", t, z, -inf, isnan(NAN));
    printf("popcount %d clz %d\n", __builtin_popcount(0xF0F0u), __builtin_clz(1u));
    const wchar_t *w = L"wide";
    printf("wide %d %zu\n", (int)w[2], wcslen(w));
    char *dup = strdup("duplicate");
    dup[0] = 'D';
    printf("%s\n", dup);
    free(dup);
    int i = 0;
again:
    i++;
    if (i < 5) goto again;
    unsigned long long ull = 0xFFFFFFFFFFFFFFFFull;
    long long sll = (long long)ull;
    printf("goto %d %lld %llu\n", i, sll, ull / 3);
    switch (ull) { case 0xFFFFFFFFFFFFFFFFull: printf("max\n"); break; default: break; }
    return (int)(sum_big(b) & 0x3f);
}
