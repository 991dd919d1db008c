/* long double (x86_fp80) arithmetic, comparisons, conversions and printf's %Lf/%Le/%Lg.
   Every printed value depends on the 64-bit significand: computed in double, most lines
   would print differently. NaNs are only tested, never printed (x87 and APFloat differ in
   the sign of a default NaN, which C leaves unspecified). */
#include <stdio.h>

long double third = 1.0L / 3.0L;
long double table[4] = {0.1L, -2.5L, 1e300L, 3.0e-4000L};
struct reading {
    char tag;
    long double value;
    int count;
};
struct reading readings[2] = {{'a', 1.25L, 3}, {'b', -0.0625L, 7}};

static long double poly(long double x) {
    long double r = 0.0L;
    for (int i = 0; i < 5; i++)
        r = r * x + (long double)(i + 1);
    return r;
}

static long double mean(const long double *v, int n) {
    long double s = 0.0L;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s / n;
}

static int classify(long double a, long double b) {
    int r = 0;
    if (a < b) r |= 1;
    if (a <= b) r |= 2;
    if (a > b) r |= 4;
    if (a >= b) r |= 8;
    if (a == b) r |= 16;
    if (a != b) r |= 32;
    return r;
}

int main(void) {
    volatile long double one = 1.0L, ten = 10.0L, zero = 0.0L;
    long double x = one / 3.0L;
    printf("%.20Lf %.20Lf\n", x, third);
    printf("%Lf %Le %Lg\n", x, x, x);
    printf("%.25Le\n", x * ten);
    printf("%Lg %Lg %Lg %Lg\n", ten * ten * ten * ten * ten * ten, one / 1e5L, one / 1e4L, 123456789.0L);
    printf("%.3Lf %.0Lf %.0Lf %.0Lf %.1Lf\n", 2.0005L, 0.5L, 1.5L, 2.5L, 0.25L);
    printf("%#.0Lf %+Lf % Lf %12.4Lf|%-12.4Lf|%012.4Lf\n", 3.0L, x, x, -x, x, -x);
    printf("%LE %LG %.0Le %#Lg\n", 12345.678L, 1e-20L, 9.5L, 2.0L);

    /* Extended precision: 2^64 - 1 and 1 + 2^-63 are exact in long double only. */
    unsigned long long big = 18446744073709551615ULL;
    long double lbig = big;
    printf("%Lf %llu\n", lbig, (unsigned long long)lbig);
    long double tiny = one + one / 9223372036854775808.0L;
    printf("%d %d\n", tiny > one, (double)tiny > 1.0);
    long long neg = -9223372036854775807LL - 1;
    long double lneg = neg;
    printf("%Lf %lld\n", lneg, (long long)lneg);
    printf("%d %d %u %hhd\n", (int)-2.75L, (int)2.75L, (unsigned)3e9L, (signed char)-100.9L);

    /* Conversions to and from float and double. */
    float f = (float)x;
    double d = (double)x;
    printf("%.10f %.20f %.20Lf %.20Lf\n", f, d, (long double)f, (long double)d);
    printf("%.20Lf\n", (long double)d - x);

    /* Arithmetic. */
    long double a = 1e4000L, b = 1e-4000L;
    printf("%Le %Le %Le\n", a * b, a / 7.0L, b * b);
    printf("%Lg %Lg\n", poly(0.5L), poly(-1.25L));
    printf("%.15Lg\n", mean(table, 3));
    printf("%Le %Le\n", table[3], table[2] * table[2]);
    printf("%Lg %Lg\n", -x, -(-x));
    long double inf = one / zero;
    long double nan = zero / zero;
    printf("%Lf %Lf %Le\n", inf, -inf, -inf);
    printf("%d %d %d\n", nan != nan, nan == nan, classify(nan, one));
    printf("%d %d %d %d\n", classify(one, ten), classify(ten, one), classify(one, one),
           classify(-zero, zero));

    /* Memory: arrays, structs, pointers. */
    long double arr[5];
    for (int i = 0; i < 5; i++)
        arr[i] = (long double)i / 4.0L + third;
    long double *p = &arr[2];
    printf("%.18Lf %.18Lf %zu\n", p[1], p[-2], sizeof arr);
    struct reading r = readings[1];
    r.value *= r.count;
    printf("%c %Lg %d %zu\n", r.tag, r.value, r.count, sizeof r);
    printf("%Lg %Lg\n", readings[0].value + readings[1].value, table[0] + table[1]);

    long double acc = 1.0L;
    int steps = 0;
    while (acc + 1.0L != 1.0L) {
        acc /= 2.0L;
        steps++;
    }
    printf("%d %Le\n", steps, acc);
    return (int)(x * 30.0L);
}
