/* Float and double arithmetic, conversions and comparisons. */
#include <stdio.h>

static double poly(double x) { return ((2.5 * x - 1.25) * x + 0.5) * x - 3.0; }

static double newton_sqrt(double v) {
    double x = v > 1.0 ? v : 1.0;
    for (int i = 0; i < 30; i++) x = 0.5 * (x + v / x);
    return x;
}

static float lerp(float a, float b, float t) { return a + (b - a) * t; }

static int sign(double x) { return (x > 0) - (x < 0); }

int main(void) {
    double acc = 0;
    for (int i = -5; i <= 5; i++) acc += poly(i * 0.5);
    printf("poly %.6f\n", acc);
    printf("sqrt %.9f %.9f\n", newton_sqrt(2.0), newton_sqrt(1e6));
    float f = 0.1f;
    float g = 0;
    for (int i = 0; i < 10; i++) g += f;
    printf("float sum %.8f %d\n", g, g == 1.0f);
    printf("lerp %.4f %.4f\n", lerp(1.0f, 3.0f, 0.25f), lerp(-2.0f, 2.0f, 0.75f));
    double d = 1e300;
    d *= 1e10;
    double nan = d - d;
    printf("inf %d nan %d %d\n", d > 1e308, nan != nan, nan == nan);
    int neg = (int)-3.7;
    unsigned pos = (unsigned)3.7;
    long long big = (long long)1e15;
    printf("conv %d %u %lld %.1f %.1f\n", neg, pos, big, (double)-7, (double)4000000000u);
    float ff = (float)3.14159265358979;
    double back = ff;
    printf("narrow %.7f %.10f\n", ff, back);
    printf("neg %.2f sign %d %d %d\n", -acc, sign(-0.5), sign(0.0), sign(2.0));
    double vals[] = { 3.5, -1.0, 2.25, 8.0, -0.125 };
    double mn = vals[0], mx = vals[0];
    for (int i = 1; i < 5; i++) {
        if (vals[i] < mn) mn = vals[i];
        if (vals[i] > mx) mx = vals[i];
    }
    printf("minmax %.3f %.3f %.3f\n", mn, mx, mx / mn);
    float hex = 0x1.8p-3f;
    printf("hex %a %.5f\n", (double)hex, 1.0 / 3.0);
    unsigned long ul = 18446744073709551615ul;
    printf("ul %.1f %.1f\n", (double)ul, (float)(ul >> 12));
    return (int)(acc) & 0x7f;
}
