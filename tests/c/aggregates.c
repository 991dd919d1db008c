/* Struct values of 9-16 bytes, which clang-14 at -O0 on x86-64 returns as first-class
 * aggregates ({ i64, i64 }, { double, double }, { i8*, i64 }, ...): returned, passed,
 * stored, and taken apart with extractvalue/insertvalue. */
#include <stdio.h>

struct pair { long a, b; };
struct dpair { double x, y; };
struct mixed { double d; long n; };
struct str { const char *s; long len; };
struct three { int a, b, c; };
struct small { char c; short s; long l; };

static struct pair make_pair(long a, long b) {
    struct pair p = { a, b };
    return p;
}

static struct pair add_pairs(struct pair p, struct pair q) {
    return make_pair(p.a + q.a, p.b + q.b);
}

static struct pair fib_pair(int n) {
    struct pair p = make_pair(0, 1);
    for (int i = 0; i < n; i++)
        p = make_pair(p.b, p.a + p.b);
    return p;
}

static struct dpair scale(struct dpair v, double k) {
    struct dpair r = { v.x * k, v.y * k };
    return r;
}

static struct mixed mix(double d, long n) {
    struct mixed m;
    m.d = d / 2;
    m.n = n * 3;
    return m;
}

static struct str word(int i) {
    static const char *words[] = { "zero", "one", "two", "three" };
    struct str s = { words[i & 3], 0 };
    while (s.s[s.len]) s.len++;
    return s;
}

static struct three triple(int x) {
    struct three t = { x, x * 2, x * 3 };
    return t;
}

static struct small smallv(int x) {
    struct small s = { (char)('a' + x), (short)(x * 100), (long)x << 40 };
    return s;
}

static struct pair choose(int c, struct pair a, struct pair b) { return c ? a : b; }

static _Complex double cmul(_Complex double a, _Complex double b) { return a * b; }

int main(void) {
    struct pair p = add_pairs(make_pair(1, 2), make_pair(30, 40));
    printf("pair %ld %ld\n", p.a, p.b);
    for (int i = 0; i < 10; i += 3) {
        struct pair f = fib_pair(i);
        printf("fib %d %ld %ld\n", i, f.a, f.b);
    }
    struct dpair d = scale((struct dpair){ 1.5, -2.25 }, 4.0);
    printf("dpair %.3f %.3f\n", d.x, d.y);
    struct mixed m = mix(7.0, 5);
    printf("mixed %.2f %ld\n", m.d, m.n);
    for (int i = 0; i < 4; i++) {
        struct str s = word(i);
        printf("word %s %ld\n", s.s, s.len);
    }
    struct three t = triple(7);
    printf("three %d %d %d\n", t.a, t.b, t.c);
    struct small s = smallv(3);
    printf("small %c %d %ld\n", s.c, s.s, s.l);
    struct pair c = choose(p.a > 10, p, make_pair(-1, -2));
    printf("choose %ld %ld\n", c.a, c.b);
    _Complex double z = cmul(1.0 + 2.0 * __builtin_complex(0.0, 1.0), 3.0 - __builtin_complex(0.0, 1.0));
    printf("complex %.1f %.1f\n", __real__ z, __imag__ z);
    return (int)(p.a + t.c) & 0x7f;
}
