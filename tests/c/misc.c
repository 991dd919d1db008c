/* Varargs, short-circuit logic (phis), atomics, inline asm, chars, K&R-style calls. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static long sum_ints(int n, ...) {
    va_list ap;
    va_start(ap, n);
    long s = 0;
    for (int i = 0; i < n; i++) s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static double avg_doubles(int n, ...) {
    va_list ap;
    va_start(ap, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += va_arg(ap, double);
    va_end(ap);
    return n ? s / n : 0;
}

static void logf_(const char *fmt, ...) {
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("[log] %s\n", buf);
}

static int in_range(int x, int lo, int hi) { return x >= lo && x <= hi; }
static int either(int a, int b) { return a || b; }

static char upper(char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }
static unsigned short swap16(unsigned short x) { return (unsigned short)((x << 8) | (x >> 8)); }

static int asm_add(int a, int b) {
    int out;
    __asm__("movl %1, %0\n\taddl %2, %0" : "=&r"(out) : "r"(a), "r"(b));
    return out;
}

static int counter;
static long shared;

struct pair { long a, b; };
static struct pair make_pair(long a) { struct pair p = { a, a * 2 }; return p; }

int main(int argc, char **argv) {
    (void)argv;
    printf("sum %ld %ld\n", sum_ints(3, 1, 2, 3), sum_ints(5, 10, 20, 30, 40, 50));
    printf("avg %.3f\n", avg_doubles(4, 1.0, 2.0, 3.5, 4.5));
    logf_("%s=%d %c", "answer", 42, 'x');
    int hits = 0;
    for (int i = -3; i < 12; i++) hits += in_range(i, 0, 9) * 2 + either(i & 1, i > 8);
    printf("hits %d\n", hits);
    char s[] = "Hello, World";
    for (size_t i = 0; i < strlen(s); i++) s[i] = upper(s[i]);
    printf("%s %04x\n", s, swap16(0x1234));
    for (int i = 0; i < 5; i++) __atomic_fetch_add(&counter, i, __ATOMIC_SEQ_CST);
    long expected = 0;
    int ok = __atomic_compare_exchange_n(&shared, &expected, 99, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    int ok2 = __atomic_compare_exchange_n(&shared, &expected, 5, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    printf("atomic %d %d %d %ld %ld\n", counter, ok, ok2, shared, expected);
    printf("asm %d\n", asm_add(40, 2));
    int x = argc > 5 ? 1 : argc < 0 ? 2 : 3;
    volatile int v = 7;
    v += x;
    printf("select %d %d\n", x, v);
    struct pair p = make_pair(21);
    printf("pair %ld %ld\n", p.a, p.b);
    return hits + counter;
}
