/* Bitfields whose storage units clang loads and stores as odd-width integers (i24, i40,
 * i48, i56, i17 after packing), with signed fields that need sign extension. */
#include <stdio.h>

struct __attribute__((packed)) rgb { unsigned r : 8, g : 8, b : 8; };
struct __attribute__((packed)) wide { unsigned long a : 40; unsigned char tag; };
struct __attribute__((packed)) six { long lo : 20; long hi : 28; };
struct __attribute__((packed)) seven { unsigned long v : 56; };
struct odd { int s : 17; unsigned u : 15; };

static struct rgb colours[3] = { { 1, 2, 3 }, { 255, 128, 0 }, { 10, 20, 30 } };

int main(void) {
    struct wide w = { 0, 'w' };
    struct six x = { 0, 0 };
    struct seven sv = { 0 };
    struct odd o = { 0, 0 };
    unsigned long total = 0;
    for (int i = 0; i < 100; i++) {
        w.a += 0x123456789UL * (unsigned long)i;
        x.lo = -i * 1000;
        x.hi = i * 123457 - 9999999;
        sv.v = (sv.v << 3) ^ (unsigned long)i * 0x9E3779B97F4A7C15UL;
        o.s = o.s * 3 - i;
        o.u = o.u * 5 + (unsigned)i;
        colours[i % 3].g += (unsigned)i;
        total += w.a + (unsigned long)x.lo + (unsigned long)x.hi + sv.v + (unsigned long)o.s + o.u;
    }
    printf("%lx %lx %ld %ld %lx %d %u\n", total, (unsigned long)w.a, (long)x.lo, (long)x.hi,
           (unsigned long)sv.v, o.s, o.u);
    for (int i = 0; i < 3; i++)
        printf("%u %u %u\n", colours[i].r, colours[i].g, colours[i].b);
    return (int)(total & 0x7f);
}
