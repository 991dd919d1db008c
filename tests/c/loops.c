/* Loops, recursion, integer arithmetic, switches. */
#include <stdio.h>

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned gcd(unsigned a, unsigned b) {
    while (b != 0) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int ack(int m, int n) {
    if (m == 0) return n + 1;
    if (n == 0) return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

static int sieve(int limit) {
    char composite[1000];
    int count = 0;
    for (int i = 0; i < limit; i++) composite[i] = 0;
    for (int i = 2; i < limit; i++) {
        if (composite[i]) continue;
        count++;
        for (int j = i * i; j < limit; j += i) composite[j] = 1;
    }
    return count;
}

static const char *classify(int x) {
    switch (x % 7) {
    case 0: return "zero";
    case 1:
    case 2: return "small";
    case 3: return "three";
    case -1: return "minus";
    case 5: break;
    default: return "other";
    }
    return "five";
}

static long long collatz_steps(long long n) {
    long long steps = 0;
    do {
        n = (n & 1) ? 3 * n + 1 : n >> 1;
        steps++;
    } while (n != 1 && steps < 10000);
    return steps;
}

static unsigned bits(unsigned x) {
    unsigned c = 0;
    while (x) {
        c += x & 1u;
        x >>= 1;
    }
    return c;
}

int main(void) {
    int total = 0;
    for (int i = 0; i < 20; i++) total += fib(i);
    printf("fib sum %d\n", total);
    printf("gcd %u %u\n", gcd(1071, 462), gcd(17, 5));
    printf("ack %d\n", ack(2, 3));
    printf("primes %d\n", sieve(1000));
    for (int i = -2; i < 9; i++) printf("%d:%s ", i, classify(i));
    printf("\n");
    long long s = 0;
    for (long long n = 1; n < 50; n++) s += collatz_steps(n);
    printf("collatz %lld\n", s);
    unsigned h = 2166136261u;
    for (int i = 0; i < 100; i++) {
        h ^= (unsigned)i;
        h *= 16777619u;
    }
    printf("hash %u bits %u\n", h, bits(h));
    short sh = -3;
    unsigned char uc = 250;
    uc += 10;
    signed char sc = (signed char)200;
    printf("narrow %d %d %d %d\n", sh * 1000, uc, sc, (sh << 3) >> 1);
    long q = -17;
    printf("div %ld %ld %lu %lu\n", q / 5, q % 5, (unsigned long)q / 5, (unsigned long)q % 5);
    int nested = 0;
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++) {
            if (j > i) break;
            if ((i + j) % 3 == 0) continue;
            nested += i * j;
        }
    printf("nested %d\n", nested);
    return (total + nested) & 0x3f;
}
